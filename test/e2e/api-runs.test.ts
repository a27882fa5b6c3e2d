import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createActivities } from '../../src/worker/activities';
import { startApiServer, type RunningApi } from '../../src/api/server';
import { loadConfig } from '../../src/config';
import { openSqlite, type Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { freePort } from '../support/ports';
import { stackTarget, targetKey } from '../support/stack-target';
import { startTestWorker, type RunningWorker } from '../support/temporal';
import { tripDomain } from '../../examples/trip';
import { waitFor } from '../support/wait';
import { apiCall, type ApiResponse } from '../support/http';

// In-process by default; in the production suite (GATE_STACK_TARGET) the same runs go to the stack.
const target = stackTarget();
let baseUrl: string;
let api: RunningApi | undefined;
let worker: RunningWorker | undefined;
let db: Db | undefined;
const keys: Record<'agent' | 'otherAgent' | 'reviewer', string> = { agent: '', otherAgent: '', reviewer: '' };

const call = (method: string, p: string, key?: string, body?: unknown): Promise<ApiResponse> =>
  apiCall(baseUrl, method, p, key, body);

const scenario = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'scenarios', `${name}.json`), 'utf8'));
const runView = (id: string) => call('GET', `/v1/runs/${id}`, keys.agent).then((r) => r.body);
const pendingGate = (id: string) =>
  waitFor(
    "the run's pending gate",
    async () => (await runView(id)).pending_approvals?.[0]?.request_id as string | undefined,
  );

beforeAll(async () => {
  if (target) {
    baseUrl = target.info.api_url;
    keys.agent = targetKey(target, 'agent', 'trip-agent');
    keys.reviewer = targetKey(target, 'reviewer', 'alice');
    keys.otherAgent = targetKey(target, 'agent', 'other-agent');
    return;
  }
  process.env.GATE_LOG_LEVEL = 'silent';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-runs-'));
  db = openSqlite(path.join(dir, 'gate.db'));
  const { activities } = await createActivities({ db, domains: [tripDomain] });
  worker = await startTestWorker(activities);
  const cfg = {
    ...loadConfig({}),
    dataDir: dir,
    port: await freePort(),
    temporalAddress: process.env.TEMPORAL_ADDRESS,
    taskQueue: worker.taskQueue,
  };
  api = await startApiServer(cfg, { domains: [tripDomain] });
  baseUrl = api.url;
  const store = new KeyStore(db);
  await store.migrate();
  keys.agent = (await store.create('agent', 'trip-agent')).key;
  keys.reviewer = (await store.create('reviewer', 'alice')).key;
  keys.otherAgent = (await store.create('agent', 'other-agent')).key;
});
afterAll(async () => {
  await api?.close();
  await worker?.stop();
  await db?.close();
});

describe('runs over HTTP', () => {
  it('refuses a run without a key, with a reviewer key, or with a malformed body', async () => {
    expect((await call('POST', '/v1/runs', undefined, scenario('trip-approve'))).status).toBe(401);
    expect((await call('POST', '/v1/runs', keys.reviewer, scenario('trip-approve'))).status).toBe(403);
    const bad = await call('POST', '/v1/runs', keys.agent, { goal: '', domain: 42, model: { kind: 'scripted' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(
      expect.arrayContaining(['goal', 'domain']),
    );
    expect((await call('GET', '/v1/runs/run_nope', keys.agent)).status).toBe(404);
  });

  it('refuses a run in a domain nobody registered with 422 naming the registered ones', async () => {
    const r = await call('POST', '/v1/runs', keys.agent, { ...scenario('trip-approve'), domain: 'mars' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('unknown_domain');
    expect(r.body.error.message).toBe('unknown domain "mars"; known domains: trip');
    expect(r.body.error.details).toEqual([{ path: 'domain', message: 'must be one of: trip' }]);
  });

  it('runs the trip to a submission through the approval queue and lists the run-owned gate', async () => {
    const started = await call('POST', '/v1/runs', keys.agent, scenario('trip-approve'));
    expect(started.status).toBe(201);
    const runId = started.body.run_id;
    const requestId = await pendingGate(runId);
    const listed = await waitFor('the gate listed', async () => {
      const r = await call('GET', '/v1/approvals?status=requested', keys.reviewer);
      return (r.body.approvals as { request_id: string; payload_sha256: string }[]).find(
        (a) => a.request_id === requestId,
      );
    });
    expect(listed.payload_sha256).toMatch(/^[0-9a-f]{64}$/);
    const gate = (await call('GET', `/v1/approvals/${requestId}`, keys.reviewer)).body;
    expect(gate.payload.action).toBe('trip.submit');
    expect(gate.payload.blast_radius.budget_krw).toBe(800000);
    expect(
      (
        await call('POST', `/v1/approvals/${requestId}/decision`, keys.reviewer, {
          decision: 'approve',
          payload_sha256: gate.payload_sha256,
        })
      ).status,
    ).toBe(200);
    const done = await waitFor('the run completed', async () =>
      (await runView(runId)).status === 'completed' ? runView(runId) : undefined,
    );
    expect(done.final_answer).toContain('800,000 KRW');
    // The run's view says `completed` just before its last event is written: wait for that write.
    const trail = await waitFor('run.completed in the run trail', async () => {
      const body = (await call('GET', `/v1/runs/${runId}/audit`, keys.reviewer)).body;
      return body.events.at(-1)?.event_type === 'run.completed' ? body : undefined;
    });
    expect(trail.verified).toBe(true);
    expect(trail.events.map((e: { event_type: string }) => e.event_type)).toEqual([
      'run.started',
      'tool.result',
      'tool.result',
      'tool.result',
      'run.completed',
    ]);
    const subs = (await call('GET', '/v1/domains/trip/submissions', keys.agent)).body as {
      request_id: string;
      budget: number;
    }[];
    expect(subs.filter((s) => s.request_id === requestId).map((s) => s.budget)).toEqual([800000]);
  });

  it('answers an interaction over HTTP, refusing a response that does not fit with 422', async () => {
    const body = {
      goal: 'Where should I go?',
      domain: 'trip',
      model: {
        kind: 'scripted',
        turns: [
          {
            content: '',
            tool_calls: [
              {
                id: 'a1',
                name: 'ask_user',
                args: { type: 'CONFIRM', target: 'result', prompt: 'Submit now?', required: true },
              },
            ],
          },
          { content: 'answer: {{value:a1.value}}' },
        ],
      },
    };
    const runId = (await call('POST', '/v1/runs', keys.agent, body)).body.run_id;
    const iid = await waitFor(
      "the run's pending interaction",
      async () => (await runView(runId)).pending_interactions?.[0]?.id as string | undefined,
    );
    const wrong = await call('POST', `/v1/runs/${runId}/interactions/${iid}`, keys.reviewer, { value: 'yes' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.message).toMatch(/CONFIRM takes true or false/);
    expect((await call('POST', `/v1/runs/${runId}/interactions/${iid}`, keys.reviewer, { value: 7 })).status).toBe(422);
    expect(
      (await call('POST', `/v1/runs/${runId}/interactions/int_other`, keys.reviewer, { value: true })).status,
    ).toBe(409);
    // A question to a person: the agent cannot answer it itself.
    expect((await call('POST', `/v1/runs/${runId}/interactions/${iid}`, keys.agent, { value: true })).status).toBe(403);
    expect((await call('POST', `/v1/runs/${runId}/interactions/${iid}`, keys.reviewer, { value: true })).status).toBe(
      200,
    );
    const done = await waitFor('the run completed', async () =>
      (await runView(runId)).status === 'completed' ? runView(runId) : undefined,
    );
    expect(done.final_answer).toBe('answer: true');
  });

  it('cancels a run and its pending gate; a late decision gets 409', async () => {
    const runId = (await call('POST', '/v1/runs', keys.agent, scenario('trip-approve'))).body.run_id;
    const requestId = await pendingGate(runId);
    const gate = (await call('GET', `/v1/approvals/${requestId}`, keys.reviewer)).body;
    expect((await call('GET', `/v1/runs/${requestId}`, keys.agent)).status).toBe(404); // a gate id is not a run
    // Another agent's run is not there for it (404, as for no run at all).
    expect((await call('POST', `/v1/runs/${runId}/cancel`, keys.otherAgent, {})).status).toBe(404);
    expect((await call('POST', `/v1/runs/${runId}/cancel`, keys.agent, {})).status).toBe(202);
    await waitFor('the run cancelled', async () => ((await runView(runId)).status === 'cancelled' ? true : undefined));
    const late = await call('POST', `/v1/approvals/${requestId}/decision`, keys.reviewer, {
      decision: 'approve',
      payload_sha256: gate.payload_sha256,
    });
    expect(late.status).toBe(409);
    expect((await call('GET', `/v1/approvals/${requestId}`, keys.reviewer)).body.status).toBe('cancelled');
  });
});
