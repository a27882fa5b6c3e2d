import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApiServer, type RunningApi } from '../../src/api/server';
import { loadConfig } from '../../src/config';
import { GATE_METRICS } from '../../src/common/metrics-catalog';
import { tripDomain } from '../../examples/trip';
import { openDb } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { dashboardMetricNames } from '../support/dashboard';
import { parseExposition, sampleValue, type Sample } from '../support/prometheus';
import { freePort } from '../support/ports';
import { killLeftoverWorkers, spawnWorker, uniqueTaskQueue, type WorkerProcess } from '../support/processes';
import { waitFor } from '../support/wait';
import { startTeamsStandin, type TeamsStandin } from '../support/teams-standin';
import { evidence } from './api-harness';

let api: RunningApi;
let worker: WorkerProcess;
let workerMetricsUrl: string;
let teams: TeamsStandin;
const keys = { agent: '', reviewer: '' };

async function http(method: string, p: string, key?: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.url}${p}`, {
    method,
    headers: {
      ...headers,
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-metrics-'));
  const taskQueue = uniqueTaskQueue('metrics');
  const metricsPort = await freePort();
  workerMetricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  // A rule file whose audit-mode rule sees every deploy.prod request (gate_policy_shadow_total)
  // and changes no outcome: deploys still ask a person, the trip run keeps its domain's tiers.
  const policyFile = path.join(dataDir, 'rules.yaml');
  fs.writeFileSync(
    policyFile,
    [
      'version: 2',
      'defaults: { effect: allow }',
      'rules:',
      '  - id: trial',
      '    action: deploy.prod',
      '    when: args.amount > 0',
      '    effect: block',
      '    mode: audit',
      '  - id: people-decide',
      '    action: deploy.*',
      '    effect: require',
      '',
    ].join('\n'),
  );
  // One channel, so the cancelled gate's notices count in gate_notifications_total.
  teams = await startTeamsStandin();
  const notify = { GATE_PUBLIC_URL: 'https://gate.example.com', GATE_TEAMS_WEBHOOKS: teams.setting('ops') };
  worker = await spawnWorker({
    dataDir,
    taskQueue,
    env: { GATE_WORKER_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`, GATE_POLICY_FILE: policyFile, ...notify },
    readyTimeoutMs: 60_000,
  });
  const db = openDb({ sqliteFile: path.join(dataDir, 'gate.db') });
  const ks = new KeyStore(db);
  await ks.migrate();
  keys.agent = (await ks.create('agent', 'agent-1')).key;
  keys.reviewer = (await ks.create('reviewer', 'rev-1')).key;
  await db.close();
  process.env.GATE_LOG_LEVEL = 'silent';
  api = await startApiServer(
    loadConfig({
      ...process.env,
      GATE_DATA_DIR: dataDir,
      GATE_TASK_QUEUE: taskQueue,
      GATE_PORT: String(await freePort()),
      GATE_METRICS_QUEUE_TTL_MS: '0', // every scrape recounts, so the test sees visibility catch up
      GATE_POLICY_FILE: policyFile,
      ...notify,
    }),
    { domains: [tripDomain] },
  );
}, 90_000);
afterAll(async () => {
  await api?.close();
  await worker?.kill('SIGTERM');
  await killLeftoverWorkers();
  await teams?.close();
});

describe('metrics after a lifecycle', () => {
  it('moves the API counters, the queue depth and the workers lifecycle counters, and serves every dashboard metric', async () => {
    const action = 'deploy.prod';
    // Approved and consumed; the same create replayed by its idempotency key.
    const first = evidence({ action, ttl_seconds: 600 });
    const a = await http('POST', '/v1/approvals', keys.agent, first, { 'idempotency-key': 'metrics-a' });
    expect(a.status).toBe(201);
    const idA = String(a.body.request_id);
    expect((await http('POST', '/v1/approvals', keys.agent, first, { 'idempotency-key': 'metrics-a' })).status).toBe(
      200,
    );
    const sha = String(a.body.payload_sha256);
    const approved = await http('POST', `/v1/approvals/${idA}/decision`, keys.reviewer, {
      decision: 'approve',
      payload_sha256: sha,
    });
    expect(approved.status).toBe(200);
    expect((await http('POST', `/v1/approvals/${idA}/consume`, keys.agent)).status).toBe(200);
    expect((await http('POST', `/v1/approvals/${idA}/consume`, keys.agent)).status).toBe(409);
    // Rejected, then a second decision refused.
    const b = await http('POST', '/v1/approvals', keys.agent, evidence({ action, ttl_seconds: 600 }));
    const idB = String(b.body.request_id);
    const reject = { decision: 'reject', reason: 'not today', payload_sha256: String(b.body.payload_sha256) };
    const wrongHash = { ...reject, payload_sha256: '0'.repeat(64) };
    expect((await http('POST', `/v1/approvals/${idB}/decision`, keys.reviewer, wrongHash)).status).toBe(409);
    expect((await http('POST', `/v1/approvals/${idB}/decision`, keys.reviewer, reject)).status).toBe(200);
    expect(
      (await http('POST', `/v1/approvals/${idB}/decision`, keys.reviewer, { ...reject, decision_id: 'other' })).status,
    ).toBe(409);
    // Left to expire, with an escalation notice on the way; and one cancelled by its agent.
    const expiring = evidence({ action, ttl_seconds: 3, escalate_before_seconds: 2 });
    expect((await http('POST', '/v1/approvals', keys.agent, expiring)).status).toBe(201);
    const e = await http(
      'POST',
      '/v1/approvals',
      keys.agent,
      evidence({ action, ttl_seconds: 600, notify: ['teams:ops'] }),
    );
    expect((await http('POST', `/v1/approvals/${String(e.body.request_id)}/cancel`, keys.agent, {})).status).toBe(200);
    // An agent run whose gated submit the gate runs itself.
    const turns = [
      {
        tool_calls: [{ id: 'c1', name: 'draft_trip_request', args: { destination: 'Busan', days: 2, budget: 800000 } }],
      },
      { tool_calls: [{ id: 'c2', name: 'validate_trip_request', args: {} }] },
      { tool_calls: [{ id: 'c3', name: 'submit_trip_request', args: {} }] },
      { content: 'done' },
    ];
    const run = await http('POST', '/v1/runs', keys.agent, {
      goal: 'trip',
      domain: 'trip',
      model: { kind: 'scripted', turns },
    });
    expect(run.status).toBe(201);
    const runId = String(run.body.run_id);
    const gateId = await waitFor('the run to open its gate', async () => {
      const v = await http('GET', `/v1/runs/${runId}`, keys.agent);
      const pending = v.body.pending_approvals as { request_id: string }[];
      return pending.length > 0 && pending[0]!.request_id;
    });
    const g = await http('GET', `/v1/approvals/${gateId}`, keys.reviewer);
    const runDecision = { decision: 'approve', payload_sha256: String(g.body.payload_sha256) };
    expect((await http('POST', `/v1/approvals/${gateId}/decision`, keys.reviewer, runDecision)).status).toBe(200);
    await waitFor('the run to complete', async () => {
      const v = await http('GET', `/v1/runs/${runId}`, keys.agent);
      return v.body.status === 'completed';
    });

    const w = await waitFor(
      'the worker to count the expiry',
      async () => {
        const s = await scrape(workerMetricsUrl);
        return (sampleValue(s, 'gate_expired_total', { action, phase: 'decision' }) ?? 0) >= 1 && s;
      },
      30_000,
      500,
    );
    expect(sampleValue(w, 'gate_requests_total', { action, executor: 'external' })).toBe(4);
    expect(sampleValue(w, 'gate_requests_total', { action: 'trip.submit', executor: 'tool' })).toBe(1);
    expect(sampleValue(w, 'gate_escalated_total', { action })).toBe(1);
    expect(sampleValue(w, 'gate_cancelled_total', { action })).toBe(1);
    // The cancelled gate's two cards: when it was requested and when it ended.
    const notices = await waitFor('both cards counted', async () => {
      const s = await scrape(workerMetricsUrl);
      return (sampleValue(s, 'gate_notifications_total', { channel: 'teams', outcome: 'sent' }) ?? 0) >= 2 && s;
    });
    expect(sampleValue(notices, 'gate_notifications_total', { channel: 'teams', outcome: 'sent' })).toBe(2);
    expect(teams.cards).toHaveLength(2);
    expect(sampleValue(w, 'gate_decisions_refused_total', { action, refusal: 'HashMismatch' })).toBe(1);
    expect(sampleValue(w, 'gate_consumed_total', { action: 'trip.submit', executor: 'tool' })).toBe(1);
    expect(sampleValue(w, 'gate_tool_executions_total', { action: 'trip.submit', outcome: 'success' })).toBe(1);
    expect(sampleValue(w, 'gate_runs_started_total', { domain: 'trip' })).toBe(1);
    expect(sampleValue(w, 'gate_runs_finished_total', { domain: 'trip', status: 'completed' })).toBe(1);
    expect(sampleValue(w, 'gate_decisions_total', { action, decision: 'approve' })).toBe(1);
    expect(sampleValue(w, 'gate_decisions_total', { action, decision: 'reject' })).toBe(1);
    expect(sampleValue(w, 'gate_consumed_total', { action, executor: 'external' })).toBe(1);
    expect(sampleValue(w, 'gate_time_to_decision_seconds_count', { action, outcome: 'approved' })).toBe(1);
    expect(sampleValue(w, 'gate_time_to_decision_seconds_count', { action, outcome: 'denied' })).toBe(1);
    // The audit-mode rule saw each of the four deploy.prod gates and decided none of them.
    expect(sampleValue(w, 'gate_policy_shadow_total', { rule: 'trial', effect: 'block' })).toBe(4);
    // The SDK's own metrics come from the same endpoint.
    expect(w.some((s) => s.name.startsWith('temporal_'))).toBe(true);

    const m = await waitFor(
      'visibility to show the consumed gate',
      async () => {
        const s = await scrape(`${api.url}/metrics`);
        return (sampleValue(s, 'gate_queue_depth', { status: 'expired' }) ?? 0) >= 1 && s;
      },
      30_000,
      500,
    );
    expect(sampleValue(m, 'gate_queue_depth', { status: 'consumed' })).toBe(2); // A and the run's gate
    expect(sampleValue(m, 'gate_queue_depth', { status: 'denied' })).toBe(1);
    expect(sampleValue(m, 'gate_queue_depth', { status: 'requested' })).toBe(0);
    expect(sampleValue(m, 'gate_api_requests_total', { action, result: 'created' })).toBe(4);
    expect(sampleValue(m, 'gate_api_requests_total', { action, result: 'replayed' })).toBe(1);
    expect(sampleValue(m, 'gate_api_decisions_total', { decision: 'approve', result: 'applied' })).toBe(2);
    expect(sampleValue(m, 'gate_api_decisions_total', { decision: 'reject', result: 'illegal_transition' })).toBe(1);
    expect(sampleValue(m, 'gate_api_decisions_total', { decision: 'reject', result: 'hash_mismatch' })).toBe(1);
    expect(sampleValue(m, 'gate_queue_depth', { status: 'cancelled' })).toBe(1);
    expect(sampleValue(m, 'gate_api_consumed_total', { result: 'consumed' })).toBe(1);
    expect(
      sampleValue(m, 'gate_api_http_requests_total', { method: 'POST', route: '/v1/approvals', status: '201' }),
    ).toBe(4);

    // Every metric the dashboard queries is served by one of the two endpoints, except the ones
    // this lifecycle cannot reach, which must at least be in the catalog the code emits from.
    const served = new Set([...w, ...m].flatMap((s) => [s.name, s.family]));
    const notReached = dashboardMetricNames().filter((n) => !served.has(n));
    expect(notReached).toEqual(['gate_invalidated_total', 'temporal_activity_execution_failed_total']);
    expect(GATE_METRICS.map((g) => g.name)).toContain('gate_invalidated_total');
  });
});
