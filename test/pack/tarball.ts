import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const repo = path.resolve(__dirname, '..', '..');

/** What `npm pack` needs of the checkout: the package's files and what its build reads. */
const SOURCES = [
  'package.json',
  'README.md',
  'tsconfig.json',
  'tsconfig.build.json',
  'src',
  'bin',
  'examples',
  'scripts',
];

export const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string =>
  execFileSync(cmd, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });

/**
 * The package as `npm pack` makes it (its `prepack` build included), from a copy of the
 * package's files so the build never rewrites this checkout's dist/ under other tests.
 * The tarball is kept in `dir` under a hash of those files: the pack tests of one run
 * (sharing GATE_TEST_TMP) build it once when they run one after the other.
 */
export function packTarball(dir: string): string {
  const key = sourceHash();
  const cached = path.join(dir, `approval-gate-${key}.tgz`);
  if (fs.existsSync(cached)) return cached;
  const stage = stageSources(dir);
  const out = run('npm', ['pack', '--json', '--pack-destination', stage], stage);
  const [info] = JSON.parse(out) as { filename: string }[];
  // A rename is atomic: a test that runs alongside sees the whole tarball or none.
  fs.renameSync(path.join(stage, info!.filename), cached);
  return cached;
}

/** A copy of the package's files (and a link to this checkout's node_modules) in a new directory under `dir`. */
export function stageSources(dir: string): string {
  const stage = fs.mkdtempSync(path.join(dir, 'stage-'));
  for (const f of SOURCES) fs.cpSync(path.join(repo, f), path.join(stage, f), { recursive: true });
  fs.symlinkSync(path.join(repo, 'node_modules'), path.join(stage, 'node_modules'));
  return stage;
}

function sourceHash(): string {
  const h = createHash('sha256');
  const walk = (p: string): void => {
    const full = path.join(repo, p);
    if (fs.statSync(full).isDirectory()) for (const e of fs.readdirSync(full).sort()) walk(path.join(p, e));
    else h.update(`${p}\0`).update(fs.readFileSync(full)).update('\0');
  };
  for (const f of SOURCES) walk(f);
  return h.digest('hex').slice(0, 16);
}

/** The version of a package as this checkout has it installed. */
export function installedVersion(name: string, root = repo): string {
  const file = path.join(root, 'node_modules', name, 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}
