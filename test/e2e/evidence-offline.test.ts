import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { digest } from '../../src/common/hashing';
import { statementOf } from '../../src/common/evidence-statement';
import { flipChar } from '../support/evidence-fixtures';
import { freePort } from '../support/ports';

// `gate dev` as a real process (its own Temporal dev server, worker and API, its signing key
// made under the data dir): three gates decided over HTTP, their bundles exported with the
// CLI, then the server stopped and every bundle verified offline by `gate evidence verify`.

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'gate.js');
const dir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'evidence-offline-'));
const dataDir = path.join(dir, 'data');
let env: NodeJS.ProcessEnv;
let dev: ChildProcess | undefined;
let apiUrl = '';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function gate(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: { ...env, ...extra }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

async function keyOf(kind: string, id: string, roles?: string): Promise<string> {
  const r = await gate(['keys', 'create', '--kind', kind, '--id', id, '--json', ...(roles ? ['--roles', roles] : [])]);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { key: string }).key;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function api(method: string, p: string, key: string, body?: unknown): Promise<any> {
  const res = await fetch(`${apiUrl}${p}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function refund(n: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    correlation_id: `corr-${n}`,
    trigger_event_id: `ticket-${n}`,
    action: 'refund.create',
    target: `order/${n}`,
    summary: `Refund order ${n}`,
    blast_radius: { amount_cents: 5000 },
    args: { order_id: `o-${n}`, amount_cents: 5000 },
    ttl_seconds: 3600,
    ...over,
  };
}

beforeAll(async () => {
  const policy = path.join(dir, 'rules.yaml');
  fs.writeFileSync(policy, 'rules:\n  - action: refund.*\n    roles: [finance]\n');
  env = {
    ...process.env,
    TEMPORAL_ADDRESS: '',
    GATE_CLI_FROM_SOURCE: '1',
    GATE_DATA_DIR: dataDir,
    GATE_PORT: String(await freePort()),
    GATE_TEMPORAL_PORT: String(await freePort()),
    GATE_TEMPORAL_UI_PORT: String(await freePort()),
    GATE_TASK_QUEUE: 'evidence-offline',
    GATE_POLICY_FILE: policy,
    GATE_LOG_LEVEL: 'warn',
    GATE_API_KEY: '',
    GATE_SIGNING_KEY_FILE: '',
    GATE_SIGNING_KEYS_RETIRED_DIR: '',
  };
});

afterAll(() => {
  if (dev && dev.exitCode === null) dev.kill('SIGKILL');
});

describe('evidence bundles from gate dev, verified with the server down', () => {
  it('exports a consumed, a modified quorum and a denied gate, then verifies them offline and names tampering', async () => {
    // --- gate dev, with its own signing key -------------------------------------------------
    const proc = spawn(process.execPath, [BIN, 'dev'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    dev = proc;
    let out = '';
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`gate dev not ready in 120 s:\n${out}`)), 120_000);
      proc.stdout!.on('data', () => /^ready:/m.test(out) && (clearTimeout(timer), resolve()));
      proc.once('exit', (code) => reject(new Error(`gate dev exited ${code}:\n${out}`)));
    });
    apiUrl = /API:\s+(\S+)/.exec(out)![1]!;
    const keyid = /evidence: signing bundles with key ([0-9a-f]{64})/.exec(out)![1]!;
    expect(fs.existsSync(path.join(dataDir, 'signing', 'signing-key.pem'))).toBe(true);

    const agent = await keyOf('agent', 'refund-bot');
    const ann = await keyOf('reviewer', 'ann', 'finance');
    const bob = await keyOf('reviewer', 'bob', 'finance');
    const since = new Date(Date.now() - 1000).toISOString();

    // 1. approved, then consumed by the agent
    const a = await api('POST', '/v1/approvals', agent, refund(1));
    await api('POST', `/v1/approvals/${a.request_id}/decision`, ann, {
      decision: 'approve',
      payload_sha256: a.payload_sha256,
      note: 'order checked',
    });
    await api('POST', `/v1/approvals/${a.request_id}/consume`, agent);
    // 2. two of two: ann halves the amount, bob approves the modified args, the agent consumes
    const b = await api('POST', '/v1/approvals', agent, refund(2, { approvals_required: 2 }));
    await api('POST', `/v1/approvals/${b.request_id}/decision`, ann, {
      decision: 'modify',
      payload_sha256: b.payload_sha256,
      args: { amount_cents: 2500 },
      note: 'half: the rest was store credit',
    });
    const modified = await api('GET', `/v1/approvals/${b.request_id}`, bob);
    await api('POST', `/v1/approvals/${b.request_id}/decision`, bob, {
      decision: 'approve',
      payload_sha256: b.payload_sha256,
      args_sha256: modified.final_args_sha256,
    });
    const consumedB = await api('POST', `/v1/approvals/${b.request_id}/consume`, agent);
    expect(consumedB.args).toEqual({ order_id: 'o-2', amount_cents: 2500 });
    // 3. denied
    const c = await api('POST', '/v1/approvals', agent, refund(3));
    await api('POST', `/v1/approvals/${c.request_id}/decision`, bob, {
      decision: 'reject',
      payload_sha256: c.payload_sha256,
      reason: 'refunded twice',
    });

    // --- export with the CLI ----------------------------------------------------------------
    const keys = await gate(['evidence', 'key', '--api-url', apiUrl]);
    expect(keys.code).toBe(0);
    expect(keys.stdout).toContain(`# keyid ${keyid} (active)`);
    fs.writeFileSync(path.join(dir, 'keys.pem'), keys.stdout);
    const file = (r: { request_id: string }): string => path.join(dir, `${r.request_id}.json`);
    for (const r of [a, b, c]) {
      const e = await gate(['evidence', 'export', r.request_id, '--out', file(r), '--api-url', apiUrl, '--key', ann]);
      expect(e.code).toBe(0);
    }
    const period = path.join(dir, 'period');
    const all = await gate([
      'evidence',
      'export',
      '--since',
      since,
      '--out',
      period,
      '--api-url',
      apiUrl,
      '--key',
      ann,
    ]);
    expect(all.code).toBe(0);
    expect(all.stderr).toMatch(/^exported 3\/3: appr_\S+ \w+$/m);
    expect(fs.readdirSync(period).sort()).toEqual([a, b, c].map((r) => `${r.request_id}.json`).sort());

    // --- the server goes away ---------------------------------------------------------------
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    proc.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(
      await fetch(`${apiUrl}/healthz`).then(
        () => 'up',
        () => 'down',
      ),
    ).toBe('down');

    const offline = { GATE_API_URL: apiUrl };
    const verifyWith = (f: string, ...more: string[]): Promise<Ran> =>
      gate(['evidence', 'verify', f, '--key', path.join(dir, 'keys.pem'), ...more], offline);
    const expected: [typeof a, string][] = [
      [a, 'consumed'],
      [b, 'consumed'],
      [c, 'denied'],
    ];
    for (const [r, status] of expected) {
      const v = await verifyWith(file(r));
      expect({ code: v.code, stderr: v.stderr }).toEqual({ code: 0, stderr: '' });
      expect(v.stdout).toContain(`VERIFIED: ${r.request_id} is ${status}`);
      // The period's copy is the same request, signed by the same key.
      expect((await verifyWith(path.join(period, `${r.request_id}.json`))).code).toBe(0);
    }
    const json = JSON.parse((await verifyWith(file(b), '--json')).stdout);
    expect(json).toMatchObject({ ok: true, status: 'consumed', keyid });
    const st = statementOf(JSON.parse(fs.readFileSync(file(b), 'utf8'))) as {
      subject: { digest: { sha256: string } }[];
      predicate: { decisions: { reviewer_id: string; decision: string; auth: unknown; roles: string[] }[] };
    };
    expect(st.subject[1]!.digest.sha256).toBe(digest({ order_id: 'o-2', amount_cents: 2500 }));
    expect(st.predicate.decisions).toMatchObject([
      { reviewer_id: 'ann', decision: 'modify', auth: { method: 'api_key', key_id: 'ann' }, roles: ['finance'] },
      { reviewer_id: 'bob', decision: 'approve', auth: { method: 'api_key', key_id: 'bob' }, roles: ['finance'] },
    ]);

    // Without --key: the data dir's own keys.
    expect((await gate(['evidence', 'verify', file(a)], offline)).code).toBe(0);

    // One byte of the signature flipped: refused, the check named, exit 1.
    const bundle = JSON.parse(fs.readFileSync(file(a), 'utf8'));
    bundle.signatures[0].sig = flipChar(bundle.signatures[0].sig, 5);
    fs.writeFileSync(path.join(dir, 'tampered.json'), JSON.stringify(bundle));
    const t = await verifyWith(path.join(dir, 'tampered.json'));
    expect(t.code).toBe(1);
    expect(t.stdout).toMatch(/FAIL\s+signature/);
    expect(t.stderr).toContain('evidence check failed: signature');

    // Rotation: the old key is retired and still verifies its bundles, until its file is deleted.
    const rot = await gate(['evidence', 'rotate-key', '--json'], offline);
    expect(rot.code).toBe(0);
    const rotated = JSON.parse(rot.stdout) as { retired_keyid: string; retired_file: string; keyid: string };
    expect(rotated.retired_keyid).toBe(keyid);
    const afterRotation = await gate(['evidence', 'verify', file(a)], offline);
    expect(afterRotation.code).toBe(0);
    expect(afterRotation.stdout).toContain('signed by a retired key');
    fs.rmSync(rotated.retired_file);
    const withdrawn = await gate(['evidence', 'verify', file(a)], offline);
    expect(withdrawn.code).toBe(1);
    expect(withdrawn.stderr).toContain(`evidence check failed: key: signed by keyid ${keyid}`);
  }, 300_000);
});
