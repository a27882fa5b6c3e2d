import { ApiHarness, evidence } from './api-harness';

// GET /v1/approvals/{id} and the list, read with a reviewer's credentials, say whether
// that person may decide and why not: what the reviewer page shows instead of buttons.

let h: ApiHarness;
let financeKey: string;
let engineerKey: string;

beforeAll(async () => {
  h = await ApiHarness.start();
  financeKey = await h.createKey('reviewer', 'fin-1', undefined, ['finance']);
  engineerKey = await h.createKey('reviewer', 'eng-1', undefined, ['engineering']);
});
afterAll(() => h?.stop());

describe('viewer on a request read by a reviewer', () => {
  it('tells an eligible reviewer they may decide, and the requester, a voter and one without the role why not', async () => {
    // The requesting agent also holds a reviewer key with the role: still not its own reviewer.
    const agentKey = await h.createKey('agent', 'agent-fin');
    const requesterKey = await h.createKey('reviewer', 'agent-fin', undefined, ['finance']);
    const created = await h.create(evidence({ approvals_required: 2, reviewer_roles: ['finance'] }), {
      key: agentKey,
    });
    expect(created.status).toBe(201);
    const id = created.body.request_id as string;

    const fresh = await h.get(id, financeKey);
    expect(fresh.status).toBe(200);
    expect(fresh.body.viewer).toEqual({ reviewer_id: 'fin-1', may_decide: true });
    expect(Date.parse(fresh.body.server_time)).toBeGreaterThan(0);

    const stranger = (await h.get(id, engineerKey)).body.viewer;
    expect(stranger).toMatchObject({ reviewer_id: 'eng-1', may_decide: false, code: 'ineligible_reviewer' });
    expect(stranger.reason).toMatch(/needs one of the roles finance; you have engineering/);

    const requester = (await h.get(id, requesterKey)).body.viewer;
    expect(requester).toMatchObject({ reviewer_id: 'agent-fin', may_decide: false, code: 'self_approval' });

    const voted = await h.decide(id, { decision: 'approve', payload_sha256: created.body.payload_sha256 }, financeKey);
    expect(voted.status).toBe(200);
    const again = (await h.get(id, financeKey)).body;
    expect(again.status).toBe('requested');
    expect(again.viewer).toMatchObject({ may_decide: false, code: 'duplicate_reviewer' });
    expect(again.viewer.reason).toMatch(/already approved/);

    // What the viewer says is what a decision gets: the requester's try is refused the same way.
    const refused = await h.decide(
      id,
      { decision: 'approve', payload_sha256: created.body.payload_sha256 },
      requesterKey,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('self_approval');
  });

  it('gives an agent key no viewer', async () => {
    const created = await h.create(evidence());
    const read = await h.get(created.body.request_id, h.keys.agent);
    expect(read.status).toBe(200);
    expect(read.body.viewer).toBeUndefined();
  });

  it('marks the list items with what the list knows: the requester and the status', async () => {
    const body = evidence();
    const created = await h.create(body);
    const id = created.body.request_id as string;
    const target = encodeURIComponent(body.target as string);
    const listed = async (key: string) => {
      for (let i = 0; i < 80; i++) {
        const r = await h.http('GET', `/v1/approvals?target=${target}`, { key });
        const item = (r.body.approvals as { request_id: string; viewer?: unknown }[]).find((a) => a.request_id === id);
        if (item) return { item, body: r.body };
        await new Promise((res) => setTimeout(res, 250));
      }
      throw new Error(`${id} never listed`);
    };
    const asReviewer = await listed(h.keys.reviewer);
    expect(asReviewer.item.viewer).toEqual({ reviewer_id: 'rev-1', may_decide: true, partial: true });
    expect(Date.parse(asReviewer.body.server_time)).toBeGreaterThan(0);
    expect((await listed(h.keys.agentAsReviewer)).item.viewer).toMatchObject({
      may_decide: false,
      code: 'self_approval',
    });
    expect((await listed(h.keys.agent)).item.viewer).toBeUndefined();
  });
});
