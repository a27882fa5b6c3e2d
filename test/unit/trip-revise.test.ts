import { randomUUID } from 'node:crypto';
import { digest } from '../../src/common/hashing';
import type { DomainAdapter } from '../../src/domain/types';
import { createTripDomain, listSubmissions, migrateTripStore } from '../../examples/trip';
import { openSqlite, type Db } from '../../src/store/db';

let db: Db;
let trip: DomainAdapter;
let session: string;

beforeEach(async () => {
  db = openSqlite(':memory:');
  await migrateTripStore(db);
  trip = createTripDomain(db);
  session = `run_${randomUUID()}`;
});
afterEach(() => db.close());

/** Draft, validate and plan a submission; returns the pending input and snapshot. */
async function pendingSubmission(budget = 800_000, days = 2) {
  await trip.execute(session, 'draft_trip_request', { destination: 'Busan', days, budget }, `k_${randomUUID()}`);
  await trip.execute(session, 'validate_trip_request', {}, `k_${randomUUID()}`);
  const plan = await trip.plan(session, 'submit_trip_request', {});
  if (plan.policy !== 'require_approval') throw new Error(`expected require_approval, got ${plan.policy}`);
  return plan;
}

describe('reviewer modifications of a trip submission', () => {
  it('writes a new validated draft version and returns its input, snapshot, tier and executed values', async () => {
    const plan = await pendingSubmission();
    const r = await trip.revise(session, 'submit_trip_request', plan.input, { budget: 500_000 });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const input = {
      session_id: session,
      draft_id: expect.stringMatching(/^draft_/),
      draft_version: 2,
      destination: 'Busan',
      days: 2,
      budget: 500_000,
    };
    expect(r.input).toEqual(input);
    expect(r.input.draft_id).not.toBe(plan.input.draft_id);
    expect(r.executed_values).toEqual({ destination: 'Busan', days: 2, budget: 500_000 });
    expect(r.approvals_required).toBe(1);
    expect(r.summary).toBe('Business trip to Busan, 2 days, budget 500,000 KRW');
    expect(r.snapshot).toMatchObject({
      tool: 'submit_trip_request',
      args_sha256: digest(r.input),
      result_version: 2,
      result_sha256: digest(r.executed_values),
    });
    // The revision is now the store's truth: the new snapshot holds and a fresh plan agrees.
    expect(await trip.recheck(session, 'submit_trip_request', r.input, r.snapshot)).toEqual({ ok: true });
    expect(await trip.recheck(session, 'submit_trip_request', plan.input, plan.evidence.snapshot)).toMatchObject({
      ok: false,
    });
    const replanned = await trip.plan(session, 'submit_trip_request', {});
    expect(replanned).toMatchObject({ policy: 'require_approval', input: r.input, evidence: { snapshot: r.snapshot } });
    const out = await trip.execute(session, 'submit_trip_request', r.input, 'appr_mod');
    expect(out.content).toMatch(/budget 500,000 KRW/);
    expect(await listSubmissions(db)).toMatchObject([{ budget: 500_000, request_id: 'appr_mod' }]);
  });

  it('moves a modification into the stricter tier of its new budget', async () => {
    const plan = await pendingSubmission(800_000, 3);
    const r = await trip.revise(session, 'submit_trip_request', plan.input, { budget: 2_500_000 });
    expect(r).toMatchObject({ ok: true, approvals_required: 2 });
  });

  it('keeps one approval when a modification lowers the budget under the no-approval line', async () => {
    const plan = await pendingSubmission();
    expect(await trip.revise(session, 'submit_trip_request', plan.input, { budget: 100_000 })).toMatchObject({
      ok: true,
      approvals_required: 1,
    });
  });

  it.each([
    [{ hotel: 'Lotte' }, 'hotel'],
    [{ budget: '500000' }, 'budget'],
    [{ budget: 500_000.5 }, 'budget'],
    [{ days: 31 }, 'days'],
    [{ budget: 2_000_001 }, 'budget'],
    [{ destination: '' }, 'destination'],
  ])('refuses the patch %j with an issue at %s and writes nothing', async (patch, path) => {
    const plan = await pendingSubmission();
    const r = await trip.revise(session, 'submit_trip_request', plan.input, patch);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => i.path)).toContain(path);
    expect(await trip.recheck(session, 'submit_trip_request', plan.input, plan.evidence.snapshot)).toEqual({
      ok: true,
    });
  });

  it('refuses an empty patch and a tool that takes no modifications', async () => {
    const plan = await pendingSubmission();
    expect(await trip.revise(session, 'submit_trip_request', plan.input, {})).toMatchObject({ ok: false });
    expect(await trip.revise(session, 'draft_trip_request', plan.input, { budget: 1 })).toMatchObject({ ok: false });
  });

  it('returns the same revision when retried, instead of writing another version', async () => {
    const plan = await pendingSubmission();
    const a = await trip.revise(session, 'submit_trip_request', plan.input, { budget: 500_000 });
    const b = await trip.revise(session, 'submit_trip_request', plan.input, { budget: 500_000 });
    expect(b).toEqual(a);
  });

  it('refuses to modify a request whose draft changed since it was made', async () => {
    const plan = await pendingSubmission();
    await trip.execute(session, 'draft_trip_request', { destination: 'Daegu', days: 2, budget: 800_000 }, 'k_other');
    const r = await trip.revise(session, 'submit_trip_request', plan.input, { budget: 500_000 });
    expect(r).toMatchObject({ ok: false, issues: [{ path: 'draft_id', message: expect.stringMatching(/stale/) }] });
  });
});
