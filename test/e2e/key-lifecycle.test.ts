import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startApiStack, type ApiStack } from '../support/api-stack';
import { freePort } from '../support/ports';

// Key lifecycle through the real `gate keys` commands, against two API processes on one
// store: the stack's API in this process, and a `gate api` child process. Nothing about a
// key is cached in either, so a revocation written by the CLI is seen by both at once.

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'gate.js');

let stack: ApiStack;
let env: NodeJS.ProcessEnv;
let second: ChildProcess;
let urls: string[] = [];

function gate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

async function json<T>(args: string[]): Promise<T> {
  const r = await gate([...args, '--json']);
  if (r.code !== 0) throw new Error(`gate ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** The status each API process answers for a key on an authenticated read. */
async function statuses(key: string): Promise<number[]> {
  return Promise.all(
    urls.map(
      async (u) => (await fetch(`${u}/v1/approvals?limit=1`, { headers: { authorization: `Bearer ${key}` } })).status,
    ),
  );
}

beforeAll(async () => {
  stack = await startApiStack('keys-e2e');
  const port = await freePort();
  env = { ...stack.env, GATE_PORT: String(port), GATE_CLI_FROM_SOURCE: '1', GATE_OPERATOR: 'test-operator' };
  second = spawn(process.execPath, [BIN, 'api'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gate api did not start:\n${out}`)), 60_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      if (out.includes('api: listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    second.stdout!.on('data', onData);
    second.stderr!.on('data', onData);
    second.once('exit', (code) => reject(new Error(`gate api exited ${code}:\n${out}`)));
  });
  urls = [stack.api.url, `http://127.0.0.1:${port}`];
});

afterAll(async () => {
  if (second && second.exitCode === null) {
    const exited = new Promise((r) => second.once('exit', r));
    second.kill('SIGTERM');
    await exited;
  }
  await stack?.stop();
});

describe('gate keys against two API processes on one store', () => {
  it('refuses a revoked key with 401 on both processes at once', async () => {
    const { key } = await json<{ key: string }>(['keys', 'create', '--kind', 'agent', '--id', 'doomed-bot']);
    expect(await statuses(key)).toEqual([200, 200]);
    const revoked = await json<{ status: string }>(['keys', 'revoke', 'doomed-bot', '--reason', 'leaked in a log']);
    expect(revoked.status).toBe('revoked');
    // The very next request, on either process, with no wait: nothing holds the key in memory.
    expect(await statuses(key)).toEqual([401, 401]);
    const r = await fetch(`${urls[1]}/v1/approvals`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/was revoked/);
  });

  it('rotates with a grace period: old and new key work on both, then a zero grace stops the old one', async () => {
    const first = await json<{ key: string }>(['keys', 'create', '--kind', 'reviewer', '--id', 'rolling-svc']);
    const rotated = await json<{ key: string; previous_key_until: string }>([
      'keys',
      'rotate',
      'rolling-svc',
      '--grace',
      '1h',
    ]);
    expect(Date.parse(rotated.previous_key_until) - Date.now()).toBeGreaterThan(3500_000);
    expect(await statuses(first.key)).toEqual([200, 200]);
    expect(await statuses(rotated.key)).toEqual([200, 200]);
    const again = await json<{ key: string }>(['keys', 'rotate', 'rolling-svc', '--grace', '0']);
    expect(await statuses(rotated.key)).toEqual([401, 401]);
    expect(await statuses(first.key)).toEqual([401, 401]);
    expect(await statuses(again.key)).toEqual([200, 200]);
  });

  it('stops a key at its expiry', async () => {
    const k = await json<{ key: string; expires_at: string }>([
      'keys',
      'create',
      '--kind',
      'agent',
      '--id',
      'brief-bot',
      '--expires-in',
      '3s',
    ]);
    expect(await statuses(k.key)).toEqual([200, 200]);
    await new Promise((r) => setTimeout(r, Date.parse(k.expires_at) - Date.now() + 100));
    expect(await statuses(k.key)).toEqual([401, 401]);
  });

  it('lists keys with roles, status and last use, and audits every key event with the operator', async () => {
    await json(['keys', 'create', '--kind', 'reviewer', '--id', 'fin-svc', '--roles', 'finance,audit']);
    await json(['keys', 'roles', 'fin-svc', 'finance']);
    const { keys } = await json<{ keys: { id: string; status: string; roles: string[]; last_used_at?: string }[] }>([
      'keys',
      'list',
    ]);
    const byId = new Map(keys.map((k) => [k.id, k]));
    expect(byId.get('doomed-bot')).toMatchObject({ status: 'revoked', last_used_at: expect.any(String) });
    expect(byId.get('brief-bot')?.status).toBe('expired');
    expect(byId.get('fin-svc')).toMatchObject({ status: 'active', roles: ['finance'] });
    expect(JSON.stringify(keys)).not.toMatch(/gk_/);

    const doomed = await json<{
      verified: boolean;
      events: { event_type: string; actor_id: string; note: string | null }[];
    }>(['keys', 'audit', 'doomed-bot']);
    expect(doomed.verified).toBe(true);
    expect(doomed.events.map((e) => [e.event_type, e.actor_id, e.note])).toEqual([
      ['key.created', 'operator:test-operator', null],
      ['key.revoked', 'operator:test-operator', 'leaked in a log'],
    ]);
    const rolling = await json<{ events: { event_type: string }[] }>(['keys', 'audit', 'rolling-svc']);
    expect(rolling.events.map((e) => e.event_type)).toEqual(['key.created', 'key.rotated', 'key.rotated']);
    const fin = await json<{ events: { event_type: string; data: Record<string, unknown> }[] }>([
      'keys',
      'audit',
      'fin-svc',
    ]);
    expect(fin.events[1]).toMatchObject({
      event_type: 'key.roles_changed',
      data: { from: ['audit', 'finance'], to: ['finance'] },
    });
  });

  it('refuses ambiguous or unknown ids and bad durations as the right kind of error', async () => {
    await json(['keys', 'create', '--kind', 'agent', '--id', 'both']);
    await json(['keys', 'create', '--kind', 'reviewer', '--id', 'both']);
    const ambiguous = await gate(['keys', 'revoke', 'both']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/--kind/);
    expect((await gate(['keys', 'revoke', 'both', '--kind', 'reviewer'])).code).toBe(0);
    const missing = await gate(['keys', 'rotate', 'nobody']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no live key/);
    const bad = await gate(['keys', 'rotate', 'both', '--grace', '1w']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--grace "1w" is not a duration/);
  });
});
