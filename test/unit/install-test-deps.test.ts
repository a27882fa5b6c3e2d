import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// `npm ci && npm test` on a fresh machine: the pretest script installs what the tests need.
// Here the script is sourced with its checks and installers replaced, and apt-get, sudo and
// id stubbed on PATH, so nothing is installed for real.

const ROOT = path.resolve(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'install-test-deps.sh');

let stubs: string;
let calls: string;
beforeAll(() => {
  stubs = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-test-deps-'));
  calls = path.join(stubs, 'calls');
  for (const cmd of ['apt-get', 'sudo'])
    fs.writeFileSync(path.join(stubs, cmd), `#!/bin/sh\necho "${cmd} $*" >> "${calls}"\n`, { mode: 0o755 });
});
afterAll(() => fs.rmSync(stubs, { recursive: true, force: true }));
beforeEach(() => fs.rmSync(calls, { force: true }));

/** Runs the script's main with `present` saying which checks pass, as user `uid`. */
function install(present: { postgres: boolean; chromium: boolean }, uid: number, env: NodeJS.ProcessEnv = {}) {
  fs.writeFileSync(path.join(stubs, 'id'), `#!/bin/sh\necho ${uid}\n`, { mode: 0o755 });
  const script = [
    `source ${JSON.stringify(SCRIPT)}`,
    `have_postgres() { ${present.postgres}; }`,
    `have_chromium() { ${present.chromium}; }`,
    `install_temporal_cli() { echo "temporal-cli" >> "${calls}"; }`,
    `install_temporal_server() { echo "temporal-server" >> "${calls}"; }`,
    'main',
  ].join('\n');
  const r = spawnSync('bash', ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, GATE_SKIP_PG: '', GATE_SKIP_BROWSER: '', ...env, PATH: `${stubs}:${process.env.PATH}` },
  });
  const made = fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n') : [];
  return { status: r.status, out: r.stdout + r.stderr, calls: made };
}

describe('npm test installs what the tests need', () => {
  it('runs the installer as pretest, and CI runs only the README command', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.pretest).toBe('bash scripts/install-test-deps.sh');
    const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8');
    const commands = ci.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    expect(commands).toEqual([
      'set -euo pipefail',
      'cd "$(dirname "$0")/.."',
      'npm ci --no-audit --no-fund && npm test',
    ]);
  });

  it('installs nothing and says nothing when everything is there', () => {
    const r = install({ postgres: true, chromium: true }, 0);
    expect(r).toEqual({ status: 0, out: '', calls: ['temporal-cli', 'temporal-server'] });
  });

  it("installs missing PostgreSQL and Chromium from Debian's packages as root, and says so", () => {
    const r = install({ postgres: false, chromium: false }, 0);
    expect(r.status).toBe(0);
    expect(r.out).toContain("installing postgresql chromium from Debian's packages");
    expect(r.calls).toEqual([
      'apt-get update -qq',
      'apt-get install -y -qq postgresql chromium',
      'temporal-cli',
      'temporal-server',
    ]);
  });

  it('uses sudo -n when not root, and installs only what is missing', () => {
    const r = install({ postgres: true, chromium: false }, 1000);
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([
      'sudo -n true',
      'sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq',
      'sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium',
      'temporal-cli',
      'temporal-server',
    ]);
  });

  it('leaves out what GATE_SKIP_PG and GATE_SKIP_BROWSER skip', () => {
    const r = install({ postgres: false, chromium: false }, 0, { GATE_SKIP_PG: '1', GATE_SKIP_BROWSER: '1' });
    expect(r).toEqual({ status: 0, out: '', calls: ['temporal-cli', 'temporal-server'] });
  });

  it('says nothing from the Temporal CLI installer when a usable CLI is there', () => {
    const env = { ...process.env, TEMPORAL_CLI_PATH: '/bin/true' };
    const installer = path.join(ROOT, 'scripts', 'install-temporal.sh');
    const quiet = spawnSync('bash', [installer, '--quiet'], { encoding: 'utf8', env });
    expect([quiet.status, quiet.stdout + quiet.stderr]).toEqual([0, '']);
    const plain = spawnSync('bash', [installer], { encoding: 'utf8', env });
    expect(plain.stdout).toContain('temporal: using TEMPORAL_CLI_PATH=/bin/true');
  });
});
