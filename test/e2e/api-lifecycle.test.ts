import { GateClient } from '../../src/client/gate-client';
import { ApiHarness, evidence } from './api-harness';

let h: ApiHarness;
beforeAll(async () => {
  h = await ApiHarness.start();
});
afterAll(async () => {
  await h?.stop();
});

async function open(
  over: Record<string, unknown> = {},
): Promise<{ id: string; sha: string; body: Record<string, unknown> }> {
  const body = evidence(over);
  const res = await h.create(body);
  expect(res.status).toBe(201);
  return { id: res.body.request_id, sha: res.body.payload_sha256, body };
}

describe('an approval request over HTTP', () => {
  it('is created as requested, approved by a reviewer, and consumed once with the exact args', async () => {
    const body = evidence();
    const created = await h.create(body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      request_id: expect.stringMatching(/^appr_/),
      status: 'requested',
      expires_at: expect.any(String),
      payload_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const id = created.body.request_id;

    const shown = await h.get(id);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      status: 'requested',
      payload_sha256: created.body.payload_sha256,
      stale: false,
      payload: { agent_id: 'agent-1', args: body.args },
    });

    const approved = await h.decide(id, {
      decision: 'approve',
      payload_sha256: created.body.payload_sha256,
      note: 'looks right',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', reviewer_id: 'rev-1', applied: true });

    const consumed = await h.consume(id);
    expect(consumed.status).toBe(200);
    expect(consumed.body.args).toEqual(body.args);
    expect((await h.consume(id)).status).toBe(409);
    await h.waitFor(id, (g) => g.status === 'consumed');
  });

  it('is denied by a rejection, which needs a reason, and then nothing is consumable', async () => {
    const { id, sha } = await open();
    const noReason = await h.decide(id, { decision: 'reject', payload_sha256: sha });
    expect(noReason.status).toBe(422);
    expect(noReason.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '$.reason' })]),
    );

    const rejected = await h.decide(id, { decision: 'reject', payload_sha256: sha, reason: 'duplicate refund' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('denied');
    expect((await h.consume(id)).status).toBe(409);
    expect((await h.decide(id, { decision: 'approve', payload_sha256: sha })).status).toBe(409);
    const g = await h.waitFor(id, (b) => b.status === 'denied');
    expect(g.decision.reason).toBe('duplicate refund');
  });

  it('runs the reviewer-modified args when a reviewer modifies the request', async () => {
    const { id, sha, body } = await open();
    const modified = await h.decide(id, { decision: 'modify', payload_sha256: sha, args: { amount: 5000 } });
    expect(modified.status).toBe(200);
    expect(modified.body.status).toBe('approved');
    const consumed = await h.consume(id);
    expect(consumed.status).toBe(200);
    expect(consumed.body.args).toEqual({ ...(body.args as object), amount: 5000 });
  });

  it('is cancelled by its own agent, is not found by another agent, and cannot be cancelled once decided', async () => {
    const { id, sha } = await open();
    // Another agent's request is not there for it: the same 404 as an id that does not exist.
    const foreign = await h.http('POST', `/v1/approvals/${id}/cancel`, { key: h.keys.otherAgent, body: {} });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: { code: 'not_found', message: `no approval request ${id}` } });
    const cancelled = await h.http('POST', `/v1/approvals/${id}/cancel`, {
      key: h.keys.agent,
      body: { reason: 'plan changed' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await h.decide(id, { decision: 'approve', payload_sha256: sha })).status).toBe(409);

    const decided = await open();
    expect((await h.decide(decided.id, { decision: 'approve', payload_sha256: decided.sha })).status).toBe(200);
    const late = await h.http('POST', `/v1/approvals/${decided.id}/cancel`, { key: h.keys.agent });
    expect(late.status).toBe(409);
  });

  it('expires after its ttl, and a late approval gets 409 (not 404) and nothing becomes consumable', async () => {
    const { id, sha } = await open({ ttl_seconds: 2 });
    await h.waitFor(id, (g) => g.status === 'expired', 30_000);
    // The gate's workflow has finished: the late decision meets a closed workflow, not a live one.
    const handle = h.client.workflow.getHandle(id);
    for (let i = 0; i < 100 && (await handle.describe()).status.name === 'RUNNING'; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    const late = await h.decide(id, { decision: 'approve', payload_sha256: sha });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/expired/);
    const consume = await h.consume(id);
    expect(consume.status).toBe(409);
    expect(consume.body.error.message).toMatch(/expired/);
    await expect(
      h.gate.signalDecision(id, {
        decision_id: 'late-1',
        reviewer_id: 'rev-1',
        decision: 'approve',
        payload_sha256: sha,
      }),
    ).rejects.toMatchObject({ status: 409 });
    expect((await h.get(id)).body).toMatchObject({ status: 'expired', stale: false });
  });

  it('is still readable, marked stale, when no worker answers its queries', async () => {
    const orphan = new GateClient(h.client, {
      taskQueue: `nobody-${Date.now()}`,
      queryTimeoutMs: 1000,
      audit: h.audit,
    });
    const created = await orphan.create(evidence(), { agentId: 'agent-1' });
    expect(created.created).toBe(true);
    const view = await orphan.get(created.request.request_id);
    expect(view).toMatchObject({
      stale: true,
      status: 'requested',
      agent_id: 'agent-1',
      payload_sha256: created.request.payload_sha256,
    });
    const trail = await orphan.audit(created.request.request_id);
    expect(trail).toMatchObject({ source: 'store', verified: true });
    await h.client.workflow.getHandle(created.request.request_id).terminate('test cleanup');
  });

  it('needs two distinct reviewers when approvals_required is 2', async () => {
    const { id, sha, body } = await open({ approvals_required: 2 });
    const first = await h.decide(id, { decision: 'approve', payload_sha256: sha });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'requested', approvals: 1, approvals_required: 2 });
    expect((await h.consume(id)).status).toBe(409);
    const again = await h.decide(id, { decision: 'approve', payload_sha256: sha });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('duplicate_reviewer');
    const second = await h.decide(id, { decision: 'approve', payload_sha256: sha }, h.keys.reviewer2);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'approved', approvals: 2 });
    expect((await h.consume(id)).body.args).toEqual(body.args);
  });

  it('refuses self-approval with 403 and an agent key on a decision with 403', async () => {
    const { id, sha } = await open();
    const self = await h.decide(id, { decision: 'approve', payload_sha256: sha }, h.keys.agentAsReviewer);
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe('self_approval');
    const byAgent = await h.decide(id, { decision: 'approve', payload_sha256: sha }, h.keys.agent);
    expect(byAgent.status).toBe(403);
    expect(byAgent.body.error.code).toBe('wrong_key_kind');
    expect((await h.get(id)).body).toMatchObject({ status: 'requested', votes: [] });
  });

  it('answers 401 without a key or with an unknown key, and a reviewer key cannot create', async () => {
    expect((await h.http('POST', '/v1/approvals', { body: evidence() })).status).toBe(401);
    const unknown = await h.create(evidence(), { key: 'gk_agent_' + 'A'.repeat(43) });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('unauthenticated');
    expect((await h.http('GET', '/v1/approvals')).status).toBe(401);
    expect((await h.create(evidence(), { key: h.keys.reviewer })).status).toBe(403);
  });

  it('answers 404 for an unknown request id', async () => {
    const sha = 'a'.repeat(64);
    expect((await h.get('appr_000000000000000000000000')).status).toBe(404);
    expect((await h.decide('appr_000000000000000000000000', { decision: 'approve', payload_sha256: sha })).status).toBe(
      404,
    );
    expect((await h.consume('appr_000000000000000000000000')).status).toBe(404);
    expect((await h.audit_('appr_000000000000000000000000')).status).toBe(404);
  });

  it('keeps an audit trail that verifies and names who did what', async () => {
    const { id, sha } = await open();
    await h.decide(id, { decision: 'approve', payload_sha256: sha, note: 'ok by me' });
    await h.consume(id);
    const trail = await h.audit_(id);
    expect(trail.status).toBe(200);
    expect(trail.body.verified).toBe(true);
    expect(trail.body.events.map((e: { event_type: string }) => e.event_type)).toEqual([
      'approval.requested',
      'approval.approved',
      'approval.consumed',
    ]);
    expect(trail.body.events[1]).toMatchObject({
      actor_type: 'human',
      actor_id: 'rev-1',
      note: 'ok by me',
      payload_sha256: sha,
    });
    // The append-only store holds the same chain, written by the worker's activity.
    const deadline = Date.now() + 10_000;
    while ((await h.audit.list(id)).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await h.audit.list(id)).map((e) => e.hash)).toEqual(trail.body.events.map((e: { hash: string }) => e.hash));
  });

  it('lists pending requests by status and target, and serves the reviewer page and health', async () => {
    const { id, body } = await open({ target: "inv_o'brien\\x" });
    const deadline = Date.now() + 15_000;
    let listed: { request_id: string }[] = [];
    while (Date.now() < deadline) {
      const res = await h.http(
        'GET',
        `/v1/approvals?status=requested&target=${encodeURIComponent(String(body.target))}`,
        { key: h.keys.reviewer },
      );
      expect(res.status).toBe(200);
      listed = res.body.approvals;
      if (listed.length > 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(listed).toEqual([
      expect.objectContaining({ request_id: id, status: 'requested', target: body.target, agent_id: 'agent-1' }),
    ]);
    expect((await h.http('GET', '/v1/approvals?status=Requested', { key: h.keys.reviewer })).status).toBe(422);

    const page = await h.http('GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('payload_sha256');
    const health = await h.http('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ ok: true, temporal: 'reachable' });
  });
});
