import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const run = promisify(execFile);
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  exports: Record<string, { types: string; default: string }>;
  typesVersions: Record<string, Record<string, string[]>>;
};

/**
 * The package as an app installs it: the compiled `dist/src` (the build's tsconfig) and
 * package.json copied into an app's node_modules, its dependencies linked, and of the
 * frameworks only the one given. Each adapter is then required by its subpath.
 */
describe('adapter subpaths of the built package', () => {
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'pkg-build-'));
    await run(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', dist],
      {
        cwd: ROOT,
      },
    );
  }, 300_000);

  function app(frameworks: string[]): string {
    const dir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'pkg-app-'));
    const mod = path.join(dir, 'node_modules');
    const own = path.join(mod, 'approval-gate');
    fs.mkdirSync(own, { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(own, 'package.json'));
    fs.cpSync(path.join(dist, 'src'), path.join(own, 'dist', 'src'), { recursive: true });
    for (const dep of [...Object.keys(pkg.dependencies), ...frameworks]) {
      const at = path.join(mod, dep);
      fs.mkdirSync(path.dirname(at), { recursive: true });
      fs.symlinkSync(path.join(ROOT, 'node_modules', dep), at, 'dir');
    }
    return dir;
  }

  async function requireIn(dir: string, specifier: string): Promise<string[]> {
    const code = `process.stdout.write(JSON.stringify(Object.keys(require(${JSON.stringify(specifier)})).sort()))`;
    const { stdout } = await run(process.execPath, ['-e', code], { cwd: dir });
    return JSON.parse(stdout) as string[];
  }

  it.each([
    ['ai-sdk', ['ai'], 'approvalGate'],
    ['openai-agents', ['@openai/agents-core'], 'approvalGate'],
    ['langchain', ['langchain', '@langchain/core'], 'approvalGateMiddleware'],
  ])('requires approval-gate/%s with only %j installed', async (sub, frameworks, entry) => {
    const entryPoint = pkg.exports[`./${sub}`]!;
    expect(pkg.typesVersions['*']![sub]).toEqual([entryPoint.types.replace(/^\.\//, '')]);
    const dir = app(frameworks);
    expect(fs.existsSync(path.join(dir, 'node_modules', 'approval-gate', entryPoint.types))).toBe(true);
    expect(await requireIn(dir, `approval-gate/${sub}`)).toEqual(expect.arrayContaining([entry, 'httpGate']));
  });

  it('refuses approval-gate/langchain where LangChain is not installed', async () => {
    await expect(requireIn(app(['ai']), 'approval-gate/langchain')).rejects.toThrow(/Cannot find module 'langchain'/);
  });
});
