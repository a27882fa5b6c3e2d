import { waitFor } from '../support/wait';
import { ApiHarness, evidence } from './api-harness';

// The listing cache (GATE_LIST_CACHE_MS, src/api/list-cache.ts) with an answer that would
// stay fresh for a minute: only the API's own changes can make a listing show them sooner.
let h: ApiHarness;
beforeAll(async () => {
  h = await ApiHarness.start({ listCacheMs: 60_000 });
});
afterAll(async () => {
  await h?.stop();
});

const requestedIds = async (target: string): Promise<string[]> => {
  const res = await h.http('GET', `/v1/approvals?status=requested&target=${encodeURIComponent(target)}`, {
    key: h.keys.reviewer,
  });
  expect(res.status).toBe(200);
  return (res.body.approvals as Array<{ request_id: string }>).map((a) => a.request_id);
};

it('shows a create through the API after a refresh, and drops a decided gate at once', async () => {
  const body = evidence();
  const target = body.target as string;
  expect(await requestedIds(target)).toEqual([]); // cached for a minute from here on

  const created = await h.create(body);
  expect(created.status).toBe(201);
  const id = created.body.request_id as string;
  // A create makes the answer stale: listings refresh it in the background until visibility has the gate.
  await waitFor('the new gate in the listing', async () => (await requestedIds(target)).includes(id), 20_000);

  expect((await h.decide(id, { decision: 'approve', payload_sha256: created.body.payload_sha256 })).status).toBe(200);
  // A decision makes the next listing wait for a fresh answer; visibility itself may lag a little.
  await waitFor(
    'the decided gate gone from the listing',
    async () => !(await requestedIds(target)).includes(id),
    20_000,
  );
}, 60_000);

it('keeps answering from the cache while nothing changes through the API', async () => {
  const body = evidence();
  const target = body.target as string;
  expect(await requestedIds(target)).toEqual([]);
  // A gate created behind the API's back (by the client, as a workflow would) is not seen while the answer is fresh.
  const { request } = await h.gate.create(body, { agentId: 'agent-1' });
  await waitFor('the gate in visibility', async () => {
    const listed = await h.gate.list({ status: 'requested', target });
    return listed.some((g) => g.request_id === request.request_id);
  });
  expect(await requestedIds(target)).toEqual([]);
}, 60_000);
