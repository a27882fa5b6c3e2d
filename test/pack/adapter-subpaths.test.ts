import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { installedVersion, packTarball, repo } from './tarball';

// The adapter subpaths as an app gets them: the packed tarball installed from the registry
// (npm's cache) beside ONE framework, at the version this checkout uses, in a throwaway
// project per framework. Plain Node scripts then require and import the subpath and drive
// the framework's offline test model up to the adapter (test/pack/subpath/).

const FRAMEWORKS = {
  'ai-sdk': ['ai'],
  'openai-agents': ['@openai/agents-core'],
  langchain: ['langchain', '@langchain/core'],
} as const;
type Subpath = keyof typeof FRAMEWORKS;
const SUBPATHS = Object.keys(FRAMEWORKS) as Subpath[];
/** Each framework's packages and what they bring, none of which may be in another framework's project. */
const FAMILY: Record<Subpath, string[]> = {
  'ai-sdk': ['ai', '@ai-sdk/provider', '@ai-sdk/provider-utils', '@ai-sdk/gateway'],
  'openai-agents': ['@openai/agents-core', '@openai/agents', 'openai'],
  langchain: ['langchain', '@langchain/core', '@langchain/langgraph'],
};

const exec = promisify(execFile);
/** An app's strict settings, resolving the package by its exports map as Node does. */
const CHECK_OPTIONS = {
  target: 'ES2022',
  module: 'node16',
  moduleResolution: 'node16',
  lib: ['ES2022'],
  types: ['node'],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};
const tmp = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-pack-adapters-'));
const projectOf = (sub: Subpath) => path.join(tmp, sub);

beforeAll(async () => {
  const tarball = packTarball(process.env.GATE_TEST_TMP ?? os.tmpdir());
  // Three installs at once: npm's cache is safe to share, and most of the time is waiting.
  await Promise.all(
    SUBPATHS.map(async (sub) => {
      const dir = projectOf(sub);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `pack-${sub}`, private: true }));
      const frameworks = FRAMEWORKS[sub].map((name) => `${name}@${installedVersion(name)}`);
      const flags = ['--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'];
      await exec('npm', ['install', tarball, ...frameworks, ...flags], { cwd: dir, maxBuffer: 64 << 20 });
      for (const f of fs.readdirSync(path.join(__dirname, 'subpath')))
        fs.copyFileSync(path.join(__dirname, 'subpath', f), path.join(dir, f));
    }),
  );
}, 600_000);
// Three projects of about 400 MB each: not kept past the file.
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Every copy of `name` in the project's node_modules tree, nested ones included. */
function copiesOf(dir: string, name: string): string[] {
  const found: string[] = [];
  const walk = (modules: string): void => {
    if (!fs.existsSync(modules)) return;
    if (fs.existsSync(path.join(modules, name, 'package.json'))) found.push(path.join(modules, name));
    for (const e of fs.readdirSync(modules)) {
      const pkgs = e.startsWith('@') ? fs.readdirSync(path.join(modules, e)).map((s) => `${e}/${s}`) : [e];
      for (const p of pkgs) walk(path.join(modules, p, 'node_modules'));
    }
  };
  walk(path.join(dir, 'node_modules'));
  return found;
}

async function node(dir: string, args: string[]): Promise<string> {
  return (await exec(process.execPath, args, { cwd: dir })).stdout;
}

/** Loads `specifier` in a fresh Node process (CommonJS `require`, or ESM `import`) and returns what it threw. */
async function loadError(dir: string, specifier: string, how: 'require' | 'import'): Promise<string> {
  const code =
    how === 'require' ? `require(${JSON.stringify(specifier)})` : `await import(${JSON.stringify(specifier)})`;
  const args = how === 'require' ? ['-e', code] : ['--input-type=module', '-e', code];
  try {
    await node(dir, args);
  } catch (err) {
    return (err as { stderr: string }).stderr;
  }
  throw new Error(`${specifier} loaded by ${how}`);
}

describe.each(SUBPATHS)('approval-gate/%s from the packed tarball', (sub) => {
  const dir = projectOf(sub);
  const others = SUBPATHS.filter((s) => s !== sub);

  const reports = new Map<string, { requestId: string }>();

  it('is installed beside its own framework and none of the others', () => {
    for (const name of FRAMEWORKS[sub]) expect(copiesOf(dir, name)).toHaveLength(1);
    for (const other of others)
      for (const name of FAMILY[other]) expect({ name, copies: copiesOf(dir, name) }).toEqual({ name, copies: [] });
  });

  it('is a subpath of the installed package, with its types for both module resolutions', () => {
    const own = path.join(dir, 'node_modules', 'approval-gate');
    const pkg = JSON.parse(fs.readFileSync(path.join(own, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; default: string }>;
      typesVersions: Record<string, Record<string, string[]>>;
    };
    const entry = pkg.exports[`./${sub}`]!;
    expect(pkg.typesVersions['*']![sub]).toEqual([entry.types.replace(/^\.\//, '')]);
    for (const file of [entry.types, entry.default]) expect(fs.existsSync(path.join(own, file))).toBe(true);
  });

  it.each(['main.js', 'main.mjs'])(
    'loads through %s and takes a tool call to the gate server (CommonJS require, ESM import)',
    async (script) => {
      const r = JSON.parse(await node(dir, [script, sub]));
      reports.set(script, r);
      expect(Object.keys(r.functions).length).toBeGreaterThan(2);
      expect(Object.values(r.functions)).toEqual(Object.values(r.functions).map(() => 'function'));
      expect(r.requestId).toMatch(/^appr_[0-9a-f]{24}$/);
      expect(r.pending).toEqual(['call_1']);
      // No server there: the adapter's own error, naming where it looked, not a module error.
      expect(r.result).toEqual({
        settled: 'rejected',
        name: 'GateUnreachableError',
        message: expect.stringContaining(`approval-gate at ${r.url} is unreachable`),
        isAdapterError: true,
      });
    },
  );

  it('derives the same gate id under require and import (a restarted process finds its gate)', () => {
    expect(reports.get('main.mjs')?.requestId).toBe(reports.get('main.js')?.requestId);
    expect(reports.get('main.js')?.requestId).toBeDefined();
  });

  it("type-checks the docs' example for it (as shipped in examples/adapters) against the installed types", async () => {
    const shipped = path.join(dir, 'node_modules', 'approval-gate', 'examples', 'adapters');
    for (const f of [`${sub}.ts`, 'payments.ts']) fs.copyFileSync(path.join(shipped, f), path.join(dir, f));
    const tsconfig = {
      compilerOptions: { ...CHECK_OPTIONS, typeRoots: [path.join(repo, 'node_modules', '@types')] },
      files: [`${sub}.ts`],
    };
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    await expect(exec(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir })).resolves.toBeDefined();
  }, 120_000);

  it.each(others)('refuses approval-gate/%s, whose framework is not installed, with a plain message', async (other) => {
    const needs = `approval-gate/${other} needs ${FRAMEWORKS[other].join(' and ')}, not installed here`;
    const install = `npm install ${FRAMEWORKS[other].map((n) => `${n}@^`)[0]}`;
    for (const how of ['require', 'import'] as const) {
      const stderr = await loadError(dir, `approval-gate/${other}`, how);
      expect(stderr).toContain('MissingPeerError');
      expect(stderr).toContain(needs);
      expect(stderr).toContain(install);
    }
  });
});
