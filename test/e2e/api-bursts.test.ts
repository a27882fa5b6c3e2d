import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { startApiServer, type RunningApi } from '../../src/api/server';
import { GateHttpClient } from '../../src/cli/http';
import { requestIdFor } from '../../src/common/evidence';
import type { AuditEvent } from '../../src/common/audit';
import { loadConfig } from '../../src/config';
import { AuditStore } from '../../src/store/audit-store';
import { openDb, type Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { refundBody, storeActivities } from '../support/gate-fixtures';
import { freePort } from '../support/ports';
import { waitFor } from '../support/wait';
import { startTestWorker, type RunningWorker } from '../support/temporal';
import { tripDomain } from '../../examples/trip';
import { createActivities } from '../../src/worker/activities';

// A burst: the gate's task queue has no worker polling yet, so its first tasks wait, as
// they do behind thousands of creates. The API sheds new creates (503 gate_busy, Retry-After)
// and answers decisions it cannot apply in time with 202, applying them once a worker runs.

interface Api {
  api: RunningApi;
  queue: string;
  db: Db;
  agent: string;
  reviewer: string;
  reviewer2: string;
  stop(): Promise<void>;
}

/** The real API (`startApiServer`, configured from the environment) on a task queue no worker polls yet. */
async function apiWithoutWorker(env: Record<string, string>): Promise<Api> {
  const dataDir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'bursts-'));
  const queue = `test-bursts-${randomUUID()}`;
  const cfg = loadConfig({
    ...process.env,
    GATE_DATA_DIR: dataDir,
    GATE_TASK_QUEUE: queue,
    GATE_PORT: String(await freePort()),
    GATE_WEBHOOK_URLS: '',
    ...env,
  });
  const api = await startApiServer(cfg, {
    domains: [tripDomain],
    logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
  });
  const db = openDb({ sqliteFile: path.join(dataDir, 'gate.db') });
  const keys = new KeyStore(db);
  return {
    api,
    queue,
    db,
    agent: (await keys.create('agent', 'agent-1')).key,
    reviewer: (await keys.create('reviewer', 'rev-1')).key,
    reviewer2: (await keys.create('reviewer', 'rev-2')).key,
    async stop() {
      await api.close();
      await db.close();
    },
  };
}

/** A worker on the API's queue, writing audit events into the API's store. */
function workerFor(a: Api): Promise<RunningWorker> {
  return startTestWorker(storeActivities(new AuditStore(a.db)), a.queue);
}

/** A response as the tests read it. */
interface Res {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies, read field by field
  headers: Headers;
}

async function call(a: Api, method: string, route: string, key: string, body?: unknown, headers = {}): Promise<Res> {
  const res = await fetch(`${a.api.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (stops.length > 0) await stops.pop()!();
});

it('sheds a create while the workers are behind, and takes it when sent again with the same idempotency key', async () => {
  const a = await apiWithoutWorker({ GATE_MAX_BACKLOG_S: '1' });
  stops.push(() => a.stop());
  expect((await call(a, 'POST', '/v1/approvals', a.agent, refundBody('first'))).status).toBe(201);

  // The first gate's task waits: once the server's backlog statistics say it has waited over 1 s, creates are shed.
  let key = '';
  let body: Record<string, unknown> = {};
  const shed = await waitFor(
    'a create shed with 503 gate_busy',
    async () => {
      key = `key-${randomUUID()}`;
      body = refundBody(key);
      const r = await call(a, 'POST', '/v1/approvals', a.agent, body, { 'idempotency-key': key });
      return r.status === 503 ? r : undefined;
    },
    30_000,
    250,
  );
  expect(shed.body.error.code).toBe('gate_busy');
  expect(shed.body.error.message).toMatch(/behind.*Idempotency-Key/);
  const retryAfter = Number(shed.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(shed.body.error.details).toMatchObject({ retry_after_s: retryAfter, max_backlog_s: 1 });
  expect(shed.body.error.details.backlog_s).toBeGreaterThan(1);
  // Nothing was started for it.
  const id = requestIdFor('agent-1', key);
  expect((await call(a, 'GET', `/v1/approvals/${id}`, a.reviewer)).status).toBe(404);

  // The workers catch up; the CLI's client sends the same create again after each Retry-After until it is taken.
  const worker = await workerFor(a);
  stops.push(() => worker.stop());
  const cli = new GateHttpClient({ baseUrl: a.api.url, key: a.agent, shedWaitMs: 60_000 });
  const taken = await cli.createApproval(body, key);
  expect(taken).toMatchObject({ request_id: id, status: 'requested' });
  const again = await call(a, 'POST', '/v1/approvals', a.agent, body, { 'idempotency-key': key });
  expect(again.status).toBe(200);
  expect(again.body.request_id).toBe(id);
  expect((await call(a, 'GET', `/v1/approvals/${id}`, a.reviewer)).status).toBe(200);
}, 120_000);

it('answers 202 for decisions it cannot apply in time, applies one when a worker runs, and audits the one refused then', async () => {
  const a = await apiWithoutWorker({ GATE_MAX_BACKLOG_S: '0', GATE_DECISION_WAIT_S: '1' });
  stops.push(() => a.stop());
  const created = await call(a, 'POST', '/v1/approvals', a.agent, refundBody('decide-later'));
  expect(created.status).toBe(201);
  const { request_id: id, payload_sha256: sha } = created.body;

  const approve = await call(a, 'POST', `/v1/approvals/${id}/decision`, a.reviewer, {
    decision: 'approve',
    payload_sha256: sha,
    decision_id: 'd-approve',
  });
  expect(approve.status).toBe(202);
  expect(approve.body).toMatchObject({
    code: 'decision_accepted',
    request_id: id,
    decision_id: 'd-approve',
    decision: 'approve',
    reviewer_id: 'rev-1',
    status: 'requested',
    pending: true,
    applied: false,
  });
  const reject = await call(a, 'POST', `/v1/approvals/${id}/decision`, a.reviewer2, {
    decision: 'reject',
    payload_sha256: sha,
    reason: 'duplicate refund',
    decision_id: 'd-reject',
  });
  expect(reject.status).toBe(202);

  // Read while no worker runs, at once: the state the gate starts with, from its history, and both decisions pending.
  const t0 = Date.now();
  const read = await call(a, 'GET', `/v1/approvals/${id}`, a.reviewer);
  expect(Date.now() - t0).toBeLessThan(4000); // not the 5 s a query waits for a worker
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ status: 'requested', stale: false, payload_sha256: sha, votes: [] });
  expect(read.body.payload.args).toEqual({ charge: 'ch_1', amount: 4000 });
  expect(read.body.pending_decisions.map((d: { decision_id: string }) => d.decision_id).sort()).toEqual([
    'd-approve',
    'd-reject',
  ]);

  const worker = await workerFor(a);
  stops.push(() => worker.stop());
  const decided = await waitFor(
    'the gate to apply a decision',
    async () => {
      const r = await call(a, 'GET', `/v1/approvals/${id}`, a.reviewer);
      return r.body.status !== 'requested' && r.body.stale === false ? r.body : undefined;
    },
    60_000,
  );
  // The two decisions reached the gate together: whichever it applied first decided, the other was refused.
  expect(['approved', 'denied']).toContain(decided.status);
  const [won, lost] = decided.status === 'approved' ? ['d-approve', 'd-reject'] : ['d-reject', 'd-approve'];
  const trail = await waitFor(
    'the refusal in the audit trail',
    async () => {
      const r = await call(a, 'GET', `/v1/approvals/${id}/audit`, a.reviewer);
      const events = r.body.events as AuditEvent[];
      return events.some((e) => e.event_type === 'decision.refused') ? r.body : undefined;
    },
    30_000,
  );
  expect(trail.verified).toBe(true);
  const events = trail.events as AuditEvent[];
  const decisionOf = (e: AuditEvent) => (e.data as { decision_id?: string } | undefined)?.decision_id;
  expect(events.filter((e) => e.event_type === `approval.${decided.status}`).map(decisionOf)).toEqual([won]);
  const refused = events.filter((e) => e.event_type === 'decision.refused');
  expect(refused).toHaveLength(1);
  expect(refused[0]).toMatchObject({ actor_type: 'human', data: { decision_id: lost, refusal: 'IllegalTransition' } });
  // Sending the applied decision again is safe: answered with its result, applied once.
  const retried = await call(
    a,
    'POST',
    `/v1/approvals/${id}/decision`,
    decided.status === 'approved' ? a.reviewer : a.reviewer2,
    {
      decision: decided.status === 'approved' ? 'approve' : 'reject',
      payload_sha256: sha,
      ...(decided.status === 'approved' ? {} : { reason: 'duplicate refund' }),
      decision_id: won,
    },
  );
  expect(retried.status).toBe(200);
  expect(retried.body).toMatchObject({ decision_id: won, status: decided.status });
  const after = (await call(a, 'GET', `/v1/approvals/${id}/audit`, a.reviewer)).body.events as AuditEvent[];
  expect(after.filter((e) => e.event_type === `approval.${decided.status}`)).toHaveLength(1);
}, 120_000);

it('stores the standing grant a decision answered 202 gives, once the gate applies it', async () => {
  const rules = path.join(
    fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'bursts-rules-')),
    'rules.yaml',
  );
  fs.writeFileSync(
    rules,
    [
      'version: 2',
      'defaults: { effect: require }',
      'rules:',
      '  - id: trusted-refunds',
      '    action: refund.*',
      '    grants: { max_for: 1h, max_uses: 2 }',
      '',
    ].join('\n'),
  );
  const a = await apiWithoutWorker({ GATE_MAX_BACKLOG_S: '0', GATE_DECISION_WAIT_S: '1', GATE_POLICY_FILE: rules });
  stops.push(() => a.stop());
  const target = `ch_${randomUUID().slice(0, 8)}`;
  const created = await call(a, 'POST', '/v1/approvals', a.agent, refundBody('granting', { target }));
  expect(created.status).toBe(201);
  expect(created.body.policy).toMatchObject({ rule_id: 'trusted-refunds' });
  const { request_id: id, payload_sha256: sha } = created.body;
  const approve = await call(a, 'POST', `/v1/approvals/${id}/decision`, a.reviewer, {
    decision: 'approve',
    payload_sha256: sha,
    decision_id: 'd-grant',
    grant: { for: '30m', max_uses: 2 },
  });
  expect(approve.status).toBe(202);
  const grantsOf = async () => (await call(a, 'GET', '/v1/grants', a.reviewer)).body.grants as { request_id: string }[];
  expect(await grantsOf()).toEqual([]); // the API stored nothing: it never saw the decision applied

  // The real worker's activities, on the API's database: the gate stores the grant it gave.
  const { activities } = await createActivities({ db: a.db, domains: [tripDomain] });
  const worker = await startTestWorker(activities, a.queue);
  stops.push(() => worker.stop());
  const grant = await waitFor(
    'the grant in the store',
    async () => (await grantsOf()).find((g) => g.request_id === id),
    60_000,
  );
  expect(grant).toMatchObject({ rule_id: 'trusted-refunds', target, status: 'active', uses: 0, max_uses: 2 });
  const { grant_id } = grant as unknown as { grant_id: string };
  const chain = (await call(a, 'GET', `/v1/approvals/${id}`, a.reviewer)).body;
  expect(chain).toMatchObject({ status: 'approved', grant: { grant_id } });

  // It answers the next create of the same agent, action and target, at creation.
  const next = await call(a, 'POST', '/v1/approvals', a.agent, refundBody('granted', { target }));
  expect(next.status).toBe(201);
  expect(next.body).toMatchObject({ status: 'approved', policy: { decided_by: `grant:${grant_id}`, grant_id } });
  const store = new AuditStore(a.db);
  expect((await store.list(`grant:${grant_id}`)).map((e) => e.event_type)).toEqual(['grant.issued', 'grant.used']);
}, 120_000);
