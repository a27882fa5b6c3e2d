import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { createActivities } from '../../src/worker/activities';
import { startApiServer, routesOf, type RunningApi } from '../../src/api/server';
import { loadConfig } from '../../src/config';
import { tripDomain } from '../../examples/trip';
import { openSqlite, type Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { generateSigningKey } from '../../src/evidence/signing-keys';
import { freePort } from '../support/ports';
import { startTestWorker, type RunningWorker } from '../support/temporal';
import { evidence } from './api-harness';

// Generated requests against the whole API as `gate api` runs it (approval, run and domain
// routes, the page, health, metrics, sign-in) on the suite's real Temporal dev server: no
// answer may be a 5xx, and every error must be exactly `{ error: { code, message, details? } }`.
// GATE_FUZZ_RUNS sets the number of batches (8 requests each); GATE_FUZZ_SEED replays a failure.

const RUNS = Number(process.env.GATE_FUZZ_RUNS ?? 375);
const BATCH = 8;

let db: Db;
let worker: RunningWorker;
let api: RunningApi;
const keys: Record<'agent' | 'reviewer' | 'otherAgent', string> = { agent: '', reviewer: '', otherAgent: '' };
const ids: string[] = []; // real request ids, so routes on existing gates are reached too
let templates: { method: string; url: string }[] = [];

beforeAll(async () => {
  process.env.GATE_LOG_LEVEL = 'silent';
  const dir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-fuzz-'));
  db = openSqlite(path.join(dir, 'gate.db'));
  const { activities } = await createActivities({ db, domains: [tripDomain] });
  worker = await startTestWorker(activities);
  const cfg = {
    ...loadConfig({ GATE_RATE_LIMIT: '0', GATE_AUTH_FAILURE_LIMIT: '0' }),
    dataDir: dir,
    port: await freePort(),
    temporalAddress: process.env.TEMPORAL_ADDRESS,
    taskQueue: worker.taskQueue,
    signingKeyFile: path.join(dir, 'signing.pem'), // evidence exports answer, as in a configured deployment
  };
  generateSigningKey(cfg.signingKeyFile);
  api = await startApiServer(cfg, { domains: [tripDomain] });
  const store = new KeyStore(db);
  await store.migrate();
  keys.agent = (await store.create('agent', 'fuzz-agent')).key;
  keys.otherAgent = (await store.create('agent', 'fuzz-agent-2')).key;
  keys.reviewer = (await store.create('reviewer', 'fuzz-reviewer')).key;
  for (let i = 0; i < 4; i++) {
    const res = await send({ method: 'POST', path: '/v1/approvals', auth: keys.agent, json: evidence() });
    expect(res.status).toBe(201);
    ids.push((JSON.parse(res.text) as { request_id: string }).request_id);
  }
  templates = routesOf(api.app);
  expect(templates.length).toBeGreaterThan(10);
});

afterAll(async () => {
  await api?.close();
  await worker?.stop();
  await db?.close();
});

interface Req {
  method: string;
  path: string;
  auth?: string;
  contentType?: string;
  json?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

async function send(r: Req): Promise<{ status: number; text: string; type: string }> {
  const headers: Record<string, string> = { ...(r.headers ?? {}) };
  if (r.auth !== undefined) headers.authorization = r.auth.startsWith('gk_') ? `Bearer ${r.auth}` : r.auth;
  const body = r.raw ?? (r.json === undefined ? undefined : JSON.stringify(r.json));
  if (body !== undefined) headers['content-type'] = r.contentType ?? 'application/json';
  const bodyAllowed = r.method !== 'GET' && r.method !== 'HEAD';
  const res = await fetch(`${api.url}${r.path}`, { method: r.method, headers, body: bodyAllowed ? body : undefined });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

// Pieces of hostile input: percent-escapes (some broken), traversal, controls, huge and odd numbers, quotes.
const nasty = fc.constantFrom(
  '%00',
  '%',
  '%zz',
  '%E0%A4%A',
  '..%2F..%2Fetc%2Fpasswd',
  '%0d%0aX-Injected:%201',
  "'%20OR%20'1'='1",
  '%22',
  '%5C',
  'a'.repeat(300),
  '1e400',
  '-0',
  '%F0%9F%92%A5',
  '__proto__',
  'constructor',
);
const segment = fc.oneof(
  fc.constantFrom(...['x', 'run_nope', 'int_1', 'req_0', '']),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent),
  nasty,
  fc.integer({ min: 0, max: 3 }).map((i) => `@id${i}`),
);
const query = fc
  .array(
    fc.tuple(
      fc.constantFrom('status', 'target', 'agent_id', 'limit', 'since', 'before', 'run_id', 'cursor', '__proto__', 'x'),
      fc.oneof(
        segment,
        fc.constantFrom('requested', 'approved', '0', '-1', '501', '1.5', 'NaN', '2026-01-01', '9999-12-31T23:59:59Z'),
        fc.constantFrom('2026-02-30', '0000-01-01', '2026-01-01T00:00:00%2B14:00', '275760-09-13'),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length ? '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&') : ''));

/** A JSON body: random JSON, a valid create or decision with fields replaced, or a known hostile shape. */
const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc
    .record({ field: fc.constantFrom(...Object.keys(evidence())), value: fc.jsonValue({ maxDepth: 3 }) })
    .map(({ field, value }) => evidence({ [field]: value })),
  fc
    .record({
      decision: fc.oneof(fc.constantFrom('approve', 'reject', 'modify', 'Approve'), fc.string()),
      payload_sha256: fc.oneof(fc.constant('a'.repeat(64)), fc.string()),
      reason: fc.option(fc.string(), { nil: undefined }),
      args: fc.option(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
    })
    .map((d) => JSON.parse(JSON.stringify(d)) as unknown),
  fc.record({
    goal: fc.string(),
    domain: fc.oneof(fc.constant('trip'), fc.string()),
    model: fc.jsonValue({ maxDepth: 2 }),
  }),
  fc.record({ value: fc.jsonValue({ maxDepth: 2 }), comment: fc.option(fc.string(), { nil: undefined }) }),
);
const rawBody = fc.oneof(
  fc.constantFrom(
    '{"args":{"amount":1e400}}',
    '{"amount":12345678901234567890}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
    '{"a":',
    '\u0000',
    'null',
    '"just a string"',
    '{"summary":"\\ud800"}',
  ),
  fc.string({ maxLength: 200 }),
  fc.integer({ min: 1, max: 200 }).map((n) => '['.repeat(n * 50)),
);

const request: fc.Arbitrary<Req> = fc
  .record({
    template: fc.nat(),
    method: fc.oneof(fc.constant('route'), fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD')),
    segments: fc.array(segment, { minLength: 3, maxLength: 3 }),
    query,
    auth: fc.oneof(
      fc.constantFrom<keyof typeof keys | 'none'>('agent', 'reviewer', 'otherAgent', 'none'),
      fc.string({ maxLength: 60 }).map((s) => `raw:${s}`),
      fc.constantFrom('raw:Bearer gk_agent_' + 'A'.repeat(43), 'raw:Basic Zm9vOmJhcg==', 'raw:Bearer'),
    ),
    body: fc.oneof(
      fc.constant(undefined),
      jsonBody.map((json) => ({ json })),
      rawBody.map((raw) => ({ raw })),
    ),
    contentType: fc.constantFrom(
      'application/json',
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16',
      'multipart/form-data; boundary=x',
    ),
    idempotency: fc.option(fc.string({ maxLength: 300 }).map(encodeURIComponent), { nil: undefined }),
  })
  .map((g) => {
    const t = templates[g.template % templates.length]!;
    let i = 0;
    const p = t.url.replace(/:[A-Za-z_]+/g, () => {
      const s = g.segments[i++ % g.segments.length]!;
      return s.startsWith('@id') ? ids[Number(s.slice(3)) % ids.length]! : s;
    });
    const auth =
      g.auth === 'none' ? undefined : g.auth.startsWith('raw:') ? g.auth.slice(4) : keys[g.auth as keyof typeof keys];
    return {
      method: g.method === 'route' ? t.method : g.method,
      path: p + g.query,
      auth,
      contentType: g.contentType,
      ...(g.body ?? {}),
      headers: (g.idempotency === undefined ? {} : { 'idempotency-key': g.idempotency }) as Record<string, string>,
    };
  });

/** Why an answer breaks the contract, or null when it keeps it. */
function violation(req: Req, res: { status: number; text: string; type: string }): string | null {
  if (res.status >= 500) return `status ${res.status}`;
  if (res.status < 400 || req.method === 'HEAD') return null;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `error body is not JSON: ${res.text.slice(0, 200)}`;
  }
  const e = (body as { error?: Record<string, unknown> }).error;
  const outer = Object.keys(body as object);
  if (!e || outer.length !== 1 || outer[0] !== 'error') return `not { error }: ${res.text.slice(0, 200)}`;
  if (typeof e.code !== 'string' || typeof e.message !== 'string') return `error without code/message: ${res.text}`;
  const extra = Object.keys(e).filter((k) => !['code', 'message', 'details'].includes(k));
  if (extra.length) return `error with extra fields ${extra.join(',')}`;
  return null;
}

describe('fuzzing every route', () => {
  it('answers thousands of generated requests with no 5xx and only the API error shape', async () => {
    const statuses = new Map<number, number>();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const answers = await Promise.all(batch.map(send));
        sent += batch.length;
        answers.forEach((res, i) => {
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const why = violation(batch[i]!, res);
          if (why) throw new Error(`${batch[i]!.method} ${batch[i]!.path}: ${why}`);
        });
      }),
      {
        numRuns: RUNS,
        ...(process.env.GATE_FUZZ_SEED ? { seed: Number(process.env.GATE_FUZZ_SEED) } : {}),
        endOnFailure: true,
      },
    );
    // Still alive and well after all of it.
    const health = await send({ method: 'GET', path: '/healthz' });
    expect(health.status).toBe(200);
    expect(sent).toBe(RUNS * BATCH);
    const seen = [...statuses.keys()];
    expect(seen.some((s) => s >= 200 && s < 300)).toBe(true); // the generator reaches real work, not only refusals
    expect(seen.some((s) => s >= 400 && s < 500)).toBe(true);
    console.log(`fuzz: ${sent} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  }, 300_000);
});
