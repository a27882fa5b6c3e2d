import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { freePort } from '../support/ports';
import { installedVersion, packTarball, repo, run } from './tarball';

// Proof from outside: the packed tarball, installed into a throwaway project with nothing
// else of this checkout, runs the docs' three ways in (examples/library) against the
// suite's Temporal server.

const tmp = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-pack-'));
const project = path.join(tmp, 'project');

let tarball: string;
let files: string[];

beforeAll(() => {
  tarball = packTarball(process.env.GATE_TEST_TMP ?? os.tmpdir());
  files = run('tar', ['-tzf', tarball], tmp).split('\n');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'pack-check', private: true }));
  // Only the tarball and what it depends on, from the npm cache where it can.
  run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], project);
  // better-sqlite3's native build takes minutes on two cores: take this checkout's build of the
  // same version (same Node ABI) instead of compiling it again; any other version is rebuilt.
  const ours = path.join(repo, 'node_modules', 'better-sqlite3');
  const theirs = path.join(project, 'node_modules', 'better-sqlite3');
  if (installedVersion('better-sqlite3') === installedVersion('better-sqlite3', project))
    fs.cpSync(path.join(ours, 'build'), path.join(theirs, 'build'), { recursive: true });
  else run('npm', ['rebuild', 'better-sqlite3'], project);
  for (const f of fs.readdirSync(path.join(repo, 'examples', 'library')))
    fs.copyFileSync(path.join(repo, 'examples', 'library', f), path.join(project, f));
  for (const f of fs.readdirSync(path.join(__dirname, 'project')))
    fs.copyFileSync(path.join(__dirname, 'project', f), path.join(project, f));
}, 600_000);

describe('the packed package, used from a project of its own', () => {
  it('ships the built src (no tests, no bench), the bin and the prebuilt workflow bundle', () => {
    expect(files).toContain('package/dist/src/workflow-bundle.js');
    expect(files).toContain('package/dist/src/workflow/index.d.ts');
    expect(files).toContain('package/bin/gate.js');
    expect(files.filter((f) => /^package\/(dist\/)?(test|bench)\//.test(f))).toEqual([]);
    const pkg = JSON.parse(
      fs.readFileSync(path.join(project, 'node_modules', 'approval-gate', 'package.json'), 'utf8'),
    );
    expect(pkg.private).toBeUndefined();
    expect(Object.keys(pkg.exports)).toEqual(
      expect.arrayContaining(['.', './workflow', './worker', './client', './webhooks']),
    );
    expect(pkg.dependencies['@temporalio/testing']).toBeUndefined();
  });

  it("type-checks the examples against the package's own types, subpath by subpath", () => {
    const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    const typeRoots = path.join(repo, 'node_modules', '@types');
    expect(() => run('node', [tsc, '-p', 'tsconfig.json', '--typeRoots', typeRoots], project)).not.toThrow();
  }, 120_000);

  it('runs a workflow call, a gated activity and an own domain through the HTTP API', async () => {
    const dataDir = path.join(tmp, 'data');
    const env = {
      ...process.env,
      GATE_DATA_DIR: dataDir,
      GATE_PORT: String(await freePort()),
      GATE_TASK_QUEUE: `pack-${randomUUID()}`,
      GATE_WEBHOOK_URLS: '',
      GATE_LOG_LEVEL: 'silent',
      GATE_CLI_FROM_SOURCE: '',
      REFUND_LEDGER: path.join(tmp, 'refunds.jsonl'),
    };
    const gate = path.join(project, 'node_modules', '.bin', 'gate');
    const key = (kind: string, id: string) =>
      (JSON.parse(run(gate, ['keys', 'create', '--kind', kind, '--id', id, '--json'], project, env)) as { key: string })
        .key;
    const driverEnv = {
      ...env,
      PACK_AGENT_KEY: key('agent', 'refund-agent'),
      PACK_REVIEWER_KEY: key('reviewer', 'alice'),
    };
    const tsx = path.join(repo, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const out = run('node', [tsx, 'driver.ts'], project, driverEnv).trim().split('\n');
    const r = JSON.parse(out[out.length - 1]!);

    // (a) the workflow continued with the reviewer's args; the gate named it and was consumed.
    expect(r.a.result).toBe('refunded 1000 cents on order A-1');
    expect(r.a.correlation_id).toMatch(/^refundWorkflow-/);
    expect(r.a.status).toBe('consumed');
    // (b) the gated refund ran exactly once after approval, and not at all after the rejection.
    expect(r.b.approved).toBe('refunded 300 cents on order B-1');
    expect(r.b.rejected).toBe('not refunded: denied');
    expect(r.ledger.filter((e: { order_id: string }) => e.order_id === 'B-1')).toEqual([
      { key: r.b.b1Key, order_id: 'B-1', cents: 300 },
    ]);
    expect(r.ledger.some((e: { order_id: string }) => e.order_id === 'B-2')).toBe(false);
    // (c) the own domain's gated tool ran after approval through POST /v1/runs; only registered domains are accepted.
    expect(r.c.created).toBe(201);
    expect(r.c.run_status).toBe('completed');
    expect(r.c.tool_results).toEqual([
      expect.objectContaining({
        tool_call_id: 'c1',
        outcome: 'success',
        content: expect.stringContaining('700 cents'),
      }),
    ]);
    expect(r.c.rows).toEqual([expect.objectContaining({ order_id: 'C-1', cents: 700 })]);
    expect(r.c.unknown_domain).toBe(422);
  }, 300_000);
});
