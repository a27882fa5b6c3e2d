import { defaultIdempotencyKey, requestIdFor } from '../../src/common/evidence';
import { ApiHarness, evidence } from './api-harness';

let h: ApiHarness;
beforeAll(async () => {
  h = await ApiHarness.start();
});
afterAll(async () => {
  await h?.stop();
});

/** The `approval.requested` events of a request: one per workflow that ever ran for it. */
async function requestedEvents(id: string): Promise<number> {
  const trail = await h.audit_(id);
  expect(trail.status).toBe(200);
  return trail.body.events.filter((e: { event_type: string }) => e.event_type === 'approval.requested').length;
}

describe('creating an approval with an idempotency key', () => {
  it('answers 201 the first time and 200 with the same request the second time', async () => {
    const body = evidence();
    const first = await h.create(body, { idempotencyKey: `key-${body.trigger_event_id}` });
    const second = await h.create(body, { idempotencyKey: `key-${body.trigger_event_id}` });
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(await requestedEvents(first.body.request_id)).toBe(1);
  });

  it('defaults the key to hash(trigger_event_id + action + target), so a bare retry is a replay', async () => {
    const body = evidence();
    const first = await h.create(body);
    const retry = await h.create({ ...body, agent_id: 'agent-1' }); // naming yourself explicitly is the same request
    expect(first.status).toBe(201);
    expect(retry.status).toBe(200);
    expect(first.body.request_id).toBe(requestIdFor('agent-1', defaultIdempotencyKey(body as never)));
    expect(retry.body.request_id).toBe(first.body.request_id);
  });

  it('starts one workflow for 20 parallel creates with one key: one 201, nineteen 200, one request id', async () => {
    const body = evidence();
    const key = `parallel-${body.trigger_event_id}`;
    const all = await Promise.all(Array.from({ length: 20 }, () => h.create(body, { idempotencyKey: key })));
    expect(all.map((r) => r.status).sort((a, b) => a - b)).toEqual([...Array(19).fill(200), 201]);
    const ids = new Set(all.map((r) => r.body.request_id));
    expect(ids.size).toBe(1);
    const [id] = [...ids] as string[];
    expect(new Set(all.map((r) => r.body.payload_sha256)).size).toBe(1);
    expect(await requestedEvents(id!)).toBe(1);
    // Visibility agrees: one execution ever ran under this workflow id.
    let count = 0;
    for (let i = 0; i < 50 && count === 0; i++) {
      count = (await h.client.workflow.count(`WorkflowId = '${id}'`)).count;
      if (count === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(count).toBe(1);
  });

  it('scopes keys by agent: another agent using the same trigger gets its own request', async () => {
    const body = evidence();
    const mine = await h.create(body);
    const theirs = await h.create({ ...body }, { key: h.keys.otherAgent });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.request_id).not.toBe(mine.body.request_id);
  });

  it('refuses the same key with another payload with 409 and leaves the original untouched', async () => {
    const body = evidence();
    const key = `reuse-${body.trigger_event_id}`;
    const first = await h.create(body, { idempotencyKey: key });
    expect(first.status).toBe(201);
    const other = await h.create(
      { ...body, summary: 'Refund twice the amount', args: { ...(body.args as object), amount: 29000 } },
      { idempotencyKey: key },
    );
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({
      code: 'idempotency_conflict',
      message: expect.stringMatching(/idempotency key reused with another payload/),
    });
    const stored = await h.get(first.body.request_id);
    expect(stored.body).toMatchObject({
      status: 'requested',
      payload_sha256: first.body.payload_sha256,
      payload: { summary: body.summary, args: body.args },
    });
    // Another agent's same key names its own request: neither a replay of agent-1's nor a conflict with it.
    const theirs = await h.create(body, { idempotencyKey: key, key: h.keys.otherAgent });
    expect(theirs.status).toBe(201);
    expect(theirs.body.request_id).not.toBe(first.body.request_id);
  });

  it('treats a create for a finished request as a replay of it, not as a new request', async () => {
    const body = evidence();
    const first = await h.create(body);
    const id = first.body.request_id;
    const cancelled = await h.http('POST', `/v1/approvals/${id}/cancel`, { key: h.keys.agent });
    expect(cancelled.status).toBe(200);
    const handle = h.client.workflow.getHandle(id);
    for (let i = 0; i < 100 && (await handle.describe()).status.name === 'RUNNING'; i++)
      await new Promise((r) => setTimeout(r, 100));
    const again = await h.create(body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ request_id: id, status: 'cancelled' });
  });
});
