import { ApiHarness, evidence } from './api-harness';

let h: ApiHarness;
beforeAll(async () => {
  h = await ApiHarness.start();
});
afterAll(async () => {
  await h?.stop();
});

async function open(): Promise<{ id: string; sha: string; args: unknown }> {
  const body = evidence();
  const res = await h.create(body);
  expect(res.status).toBe(201);
  return { id: res.body.request_id, sha: res.body.payload_sha256, args: body.args };
}

describe('concurrent callers on one request', () => {
  it('lets exactly one of 20 parallel approvals through; the rest get 409 and one decision is audited', async () => {
    const { id, sha } = await open();
    const all = await Promise.all(
      Array.from({ length: 20 }, () => h.decide(id, { decision: 'approve', payload_sha256: sha })),
    );
    const statuses = all.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const trail = await h.audit_(id);
    expect(trail.body.verified).toBe(true);
    const decisions = trail.body.events.filter((e: { event_type: string }) =>
      ['approval.approved', 'approval.vote_recorded', 'approval.denied'].includes(e.event_type),
    );
    expect(decisions).toHaveLength(1);
  });

  it('lets exactly one of 20 distinct reviewers decide at once; the others get 409 illegal_transition', async () => {
    const { id, sha } = await open();
    const keys = await Promise.all(
      Array.from({ length: 20 }, (_, i) => h.createKey('reviewer', `racer-${id.slice(-6)}-${i}`)),
    );
    const all = await Promise.all(
      keys.map(async (key, i) => {
        const body =
          i % 2
            ? { decision: 'approve', payload_sha256: sha, decision_id: `race-${i}` }
            : { decision: 'reject', payload_sha256: sha, reason: 'racing', decision_id: `race-${i}` };
        // A 503 says "retry with the same decision_id", as a client would; it must never hide a second decision.
        for (let attempt = 0; ; attempt++) {
          const r = await h.decide(id, body, key);
          if (r.status !== 503 || attempt === 5) return r;
          console.log(`reviewer ${i}: 503 ${r.body.error.code}: ${r.body.error.message}; retrying`);
          await new Promise((res) => setTimeout(res, 500));
        }
      }),
    );
    expect(all.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = all.filter((r) => r.status !== 200);
    expect(refused.map((r) => `${r.status} ${r.body.error.code}`)).toEqual(Array(19).fill('409 illegal_transition'));
    const trail = await h.audit_(id);
    const decided = trail.body.events.filter((e: { event_type: string }) =>
      ['approval.approved', 'approval.denied'].includes(e.event_type),
    );
    expect(decided).toHaveLength(1);
  });

  it('hands the args to exactly one of 20 parallel consumers', async () => {
    const { id, sha, args } = await open();
    expect((await h.decide(id, { decision: 'approve', payload_sha256: sha })).status).toBe(200);
    const all = await Promise.all(Array.from({ length: 20 }, () => h.consume(id)));
    const winners = all.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.body.args).toEqual(args);
    expect(all.filter((r) => r.status === 409)).toHaveLength(19);
    const trail = await h.audit_(id);
    expect(trail.body.events.filter((e: { event_type: string }) => e.event_type === 'approval.consumed')).toHaveLength(
      1,
    );
  });

  it('applies a decision retried with the same decision_id once, answering both calls', async () => {
    const { id, sha } = await open();
    const body = { decision: 'approve', payload_sha256: sha, decision_id: `dec-${id}` };
    const [a, b] = await Promise.all([h.decide(id, body), h.decide(id, body)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.decision_id).toBe(b.body.decision_id);
    const trail = await h.audit_(id);
    expect(trail.body.events.filter((e: { event_type: string }) => e.event_type === 'approval.approved')).toHaveLength(
      1,
    );
  });
});
