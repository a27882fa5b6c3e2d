import { execFile } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/store/db';
import { startApiStack, type ApiStack } from '../support/api-stack';

// The real `gate` binary as a child process against a real API, worker and Temporal.

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'gate.js');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

let db: Db;
let api: { url: string; close(): Promise<void> };
let stack: ApiStack;
let baseEnv: NodeJS.ProcessEnv;
let agentKey: string;
let reviewerKey: string;

/** Runs `gate …` as its own process; resolves with its exit code and output. */
function gate(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: { ...baseEnv, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function eventually<T>(fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Files a request over HTTP with the agent key, as an agent would. */
async function createRequest(summary: string): Promise<{ request_id: string; payload_sha256: string }> {
  const res = await fetch(`${api.url}/v1/approvals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      correlation_id: randomUUID(),
      trigger_event_id: `evt-${randomUUID()}`,
      action: 'refund.create',
      target: `order/${randomUUID().slice(0, 8)}`,
      summary,
      blast_radius: { amount_cents: 5000 },
      args: { order_id: 'o-42', amount_cents: 5000 },
      ttl_seconds: 3600,
    }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { request_id: string; payload_sha256: string };
}

beforeAll(async () => {
  stack = await startApiStack('cli-e2e');
  ({ db, api } = stack);
  const env = stack.env;
  baseEnv = { ...env, GATE_API_URL: api.url, GATE_API_KEY: '', GATE_CLI_FROM_SOURCE: '1' };

  const agent = await gate(['keys', 'create', '--kind', 'agent', '--id', 'refund-bot', '--json']);
  const reviewer = await gate(['keys', 'create', '--kind', 'reviewer', '--id', 'ann', '--json']);
  expect(agent.code).toBe(0);
  expect(reviewer.code).toBe(0);
  agentKey = (JSON.parse(agent.stdout) as { key: string }).key;
  reviewerKey = (JSON.parse(reviewer.stdout) as { key: string }).key;
});

afterAll(async () => {
  await stack?.stop();
});

describe('gate CLI against a running stack', () => {
  it('prints exactly { id, kind, tenant, key } for keys create --json', async () => {
    const r = await gate(['keys', 'create', '--kind', 'reviewer', '--id', 'bob', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, string>;
    expect(Object.keys(out).sort()).toEqual(['id', 'key', 'kind', 'tenant']);
    expect(out).toMatchObject({ id: 'bob', kind: 'reviewer', tenant: 'default' });
    expect(out.key).toMatch(/^gk_reviewer_/);
  });

  it('creates a key in a tenant with --tenant and refuses a malformed tenant as a usage error', async () => {
    const r = await gate(['keys', 'create', '--kind', 'agent', '--id', 'acme-bot', '--tenant', 'acme', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'acme-bot', kind: 'agent', tenant: 'acme' });
    const bad = await gate(['keys', 'create', '--kind', 'agent', '--id', 'x-bot', '--tenant', "Acme' OR 1=1"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/tenant/);
  });

  it('warns in text mode that the key is shown only once', async () => {
    const r = await gate(['keys', 'create', '--kind', 'agent', '--id', 'other-bot']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/gk_agent_/);
    expect(r.stderr).toMatch(/shown only once/);
  });

  it('lists, shows, approves, refuses a second approval and verifies the audit trail', async () => {
    const created = await createRequest('Refund 50 EUR to order o-42');
    const id = created.request_id;
    const asReviewer = { GATE_API_KEY: reviewerKey };

    // Visibility is eventually consistent: poll until the list shows the request.
    const listed = await eventually(async () => {
      const r = await gate(['approvals', 'list', '--json'], asReviewer);
      expect(r.code).toBe(0);
      const body = JSON.parse(r.stdout) as unknown;
      return JSON.stringify(body).includes(id) ? body : undefined;
    });
    expect(JSON.stringify(listed)).toContain(id);
    const table = await gate(['approvals', 'list', '--status', 'requested'], asReviewer);
    expect(table.stdout).toMatch(/^ID\s+STATUS\s+ACTION\s+TARGET\s+SUMMARY\s+EXPIRES/);

    const shown = await gate(['approvals', 'show', id], asReviewer);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Refund 50 EUR to order o-42');
    expect(shown.stdout).toContain(created.payload_sha256);

    const approved = await gate(['approve', id, '--note', 'matches the ticket'], asReviewer);
    expect(approved.stderr).toBe('');
    expect(approved.code).toBe(0);
    const after = await gate(['approvals', 'show', id, '--json'], asReviewer);
    expect((JSON.parse(after.stdout) as { status: string }).status).toBe('approved');

    const again = await gate(['approve', id], asReviewer);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: \S+: .*approved/m);

    const audit = await gate(['audit', id, '--verify'], asReviewer);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toMatch(/approval\.requested/);
    expect(audit.stdout).toMatch(/approval\.approved/);
    expect(audit.stdout).toMatch(/^OK: \d+ events/m);
    expect(audit.stdout).toMatch(/^store: \d+ events match/m);
  });

  it('audit --verify fails when the append-only store was edited behind its back', async () => {
    const { request_id: id } = await createRequest('Refund 3 EUR to order o-9');
    const asReviewer = { GATE_API_KEY: reviewerKey };
    const stored = async () => (await db.query('SELECT event_id FROM audit_events WHERE request_id = ?', [id])).length;
    for (let i = 0; i < 50 && (await stored()) === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await gate(['audit', id, '--verify'], asReviewer)).code).toBe(0);
    // Someone with database access bypasses the append-only trigger and forges a note.
    await db.run('DROP TRIGGER audit_events_no_update');
    await db.run(`UPDATE audit_events SET note = 'forged' WHERE request_id = ?`, [id]);
    const audit = await gate(['audit', id, '--verify'], asReviewer);
    expect(audit.code).toBe(1);
    expect(audit.stdout).toMatch(/^store: BROKEN/m);
    const trail = JSON.parse((await gate(['audit', id, '--verify', '--json'], asReviewer)).stdout);
    expect(trail.store).toMatchObject({ verified: false });
  });

  it('rejects with a reason and refuses a decision from an agent key', async () => {
    const { request_id: id } = await createRequest('Refund 10 EUR to order o-7');
    const byAgent = await gate(['approve', id], { GATE_API_KEY: agentKey });
    expect(byAgent.code).toBe(1);
    expect(byAgent.stderr).toMatch(/^error: /m);
    const rejected = await gate(['reject', id, '--reason', 'duplicate refund', '--json'], {
      GATE_API_KEY: reviewerKey,
    });
    expect(rejected.code).toBe(0);
    expect((JSON.parse(rejected.stdout) as { status: string }).status).toBe('denied');
  });

  it('exits 2 for bad usage', async () => {
    const asReviewer = { GATE_API_KEY: reviewerKey };
    expect((await gate(['reject', 'appr_x'], asReviewer)).code).toBe(2);
    expect((await gate(['modify', 'appr_x', '--args', '{bad'], asReviewer)).code).toBe(2);
    expect((await gate(['no-such-command'], asReviewer)).code).toBe(2);
  });

  it('exits 1 with the server message for an unknown request', async () => {
    const r = await gate(['approvals', 'show', 'appr_doesnotexist'], { GATE_API_KEY: reviewerKey });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: /);
  });
});
