import { killTemporal, restartDatabase, restartTemporal, stopDatabase } from '../../src/stack/control';
import { stackSettings, type StackSettings } from '../../src/stack/settings';
import { evidence } from '../e2e/api-harness';
import { stackTarget, targetKey, type StackTarget } from '../support/stack-target';
import { apiCall, type ApiResponse } from '../support/http';

// The API while PostgreSQL or the Temporal server is down: 503 with a message that names
// what is down, never a 500; and a gate that was pending before the outage is decided
// and consumed once the process is back.

let t: StackTarget;
let s: StackSettings;
let agent: string;
let reviewer: string;
beforeAll(() => {
  t = stackTarget()!;
  s = stackSettings(t.env);
  agent = targetKey(t, 'agent', 'agent-1');
  reviewer = targetKey(t, 'reviewer', 'rev-1');
});

const call = (method: string, p: string, key?: string, body?: unknown): Promise<ApiResponse> =>
  apiCall(t.info.api_url, method, p, key, body);

async function pendingGate(): Promise<{ id: string; sha: string }> {
  const r = await call('POST', '/v1/approvals', agent, evidence());
  expect(r.status).toBe(201);
  return { id: r.body.request_id, sha: r.body.payload_sha256 };
}

/** Retries the decision until the stack answers again (the first attempts may meet a recovering server). */
async function decideWhenBack(g: { id: string; sha: string }, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  const body = { decision: 'approve', payload_sha256: g.sha, decision_id: `back-${g.id}` };
  for (;;) {
    const r = await call('POST', `/v1/approvals/${g.id}/decision`, reviewer, body);
    expect(r.status).not.toBe(500);
    if (r.status === 200) return;
    if (Date.now() > deadline) throw new Error(`no decision after the restart: ${JSON.stringify(r)}`);
    await new Promise((res) => setTimeout(res, 1000));
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read field by field
function expectUnavailable(r: { status: number; body: any }, code: RegExp): void {
  expect(r.status).toBe(503);
  expect(r.body.error.code).toMatch(code);
  expect(r.body.error.message.length).toBeGreaterThan(10);
}

describe('the API during an outage', () => {
  it('answers 503 database_unavailable while PostgreSQL is stopped, then decides and consumes the pending gate', async () => {
    const g = await pendingGate();
    stopDatabase(s);
    try {
      expectUnavailable(await call('POST', '/v1/approvals', agent, evidence()), /^database_unavailable$/);
      expectUnavailable(await call('GET', '/v1/approvals?status=requested', reviewer), /^database_unavailable$/);
      expectUnavailable(await call('GET', `/v1/approvals/${g.id}/audit`, reviewer), /^database_unavailable$/);
      const decision = await call('POST', `/v1/approvals/${g.id}/decision`, reviewer, {
        decision: 'approve',
        payload_sha256: g.sha,
      });
      expectUnavailable(decision, /^database_unavailable$/);
      expect(decision.body.error.message).toMatch(/PostgreSQL/);
    } finally {
      restartDatabase(s);
    }
    await decideWhenBack(g);
    const consumed = await call('POST', `/v1/approvals/${g.id}/consume`, agent, {});
    expect(consumed.status).toBe(200);
  });

  it('answers 503 while the Temporal server is down, then decides and consumes the gate that waited', async () => {
    const g = await pendingGate();
    await killTemporal(s);
    try {
      const listed = await call('GET', '/v1/approvals?status=requested', reviewer);
      expectUnavailable(listed, /^temporal_unavailable$/);
      expect(listed.body.error.message).toMatch(/Temporal/);
      const decision = await call('POST', `/v1/approvals/${g.id}/decision`, reviewer, {
        decision: 'approve',
        payload_sha256: g.sha,
      });
      expectUnavailable(decision, /_unavailable$/);
    } finally {
      await restartTemporal(s);
    }
    await decideWhenBack(g);
    const consumed = await call('POST', `/v1/approvals/${g.id}/consume`, agent, {});
    expect(consumed.status).toBe(200);
    expect(consumed.body.args).toBeDefined();
  });
});
