import { randomUUID } from 'node:crypto';
import type { DomainAdapter } from '../../src/domain/types';
import { createTripDomain, listSubmissions, migrateTripStore } from '../../examples/trip';
import { openDb, type Db } from '../../src/store/db';
import { skipPostgres, startPostgres } from '../support/postgres';

/** The trip store against a REAL PostgreSQL (see test/support/postgres.ts). */
(skipPostgres ? describe.skip : describe)('trip store on PostgreSQL', () => {
  let pg: ReturnType<typeof startPostgres>;
  let db: Db;
  let trip: DomainAdapter;
  let session: string;

  beforeAll(async () => {
    pg = startPostgres();
    db = openDb({ databaseUrl: pg.url, sqliteFile: ':memory:' });
    // Worker and API migrate at the same time in production; the advisory lock must make that safe.
    await Promise.all([migrateTripStore(db), migrateTripStore(db), migrateTripStore(db)]);
    trip = createTripDomain(db);
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    pg?.stop();
  }, 60_000);

  beforeEach(() => {
    session = `run_${randomUUID()}`;
  });

  /** Draft, validate and plan a submission that needs one approver. */
  async function plannedSubmission(budget = 800_000) {
    const d = await trip.execute(
      session,
      'draft_trip_request',
      { destination: 'Busan', days: 2, budget },
      `k_${randomUUID()}`,
    );
    const v = await trip.execute(session, 'validate_trip_request', {}, `k_${randomUUID()}`);
    expect(v.values).toMatchObject({ ok: true, draft_id: d.values!.draft_id });
    const plan = await trip.plan(session, 'submit_trip_request', { draft_id: d.values!.draft_id as string });
    if (plan.policy !== 'require_approval') throw new Error(`expected require_approval, got ${JSON.stringify(plan)}`);
    return plan;
  }

  it('drafts, validates, plans and submits exactly once when executed twice with one key', async () => {
    const plan = await plannedSubmission();
    expect(await trip.recheck(session, 'submit_trip_request', plan.input, plan.evidence.snapshot)).toEqual({
      ok: true,
    });
    const key = `appr_${randomUUID()}`;
    const first = await trip.execute(session, 'submit_trip_request', plan.input, key);
    const second = await trip.execute(session, 'submit_trip_request', plan.input, key);
    expect(second).toEqual(first);
    // Amounts come back as numbers although budget is BIGINT (pg returns it as a string).
    expect(await listSubmissions(db, { sessionId: session })).toEqual([
      {
        submission_id: first.values!.submission_id,
        draft_id: plan.input.draft_id,
        destination: 'Busan',
        days: 2,
        budget: 800_000,
        request_id: key,
      },
    ]);
    expect(await trip.recheck(session, 'submit_trip_request', plan.input, plan.evidence.snapshot)).toMatchObject({
      ok: false,
    });
  });

  it('writes one submission when two executions with one key run in parallel', async () => {
    const plan = await plannedSubmission();
    const key = `appr_${randomUUID()}`;
    const outs = await Promise.all([1, 2, 3].map(() => trip.execute(session, 'submit_trip_request', plan.input, key)));
    expect(outs[1]).toEqual(outs[0]);
    expect(outs[2]).toEqual(outs[0]);
    expect(await listSubmissions(db, { sessionId: session })).toHaveLength(1);
  });

  it('applies a reviewer modification and detects drift after approval', async () => {
    const plan = await plannedSubmission();
    const r = await trip.revise(session, 'submit_trip_request', plan.input, { budget: 2_500_000, days: 3 });
    expect(r).toMatchObject({
      ok: true,
      approvals_required: 2,
      executed_values: { destination: 'Busan', days: 3, budget: 2_500_000 },
    });
    if (!r.ok) return;
    await trip.execute(
      session,
      'draft_trip_request',
      { destination: 'Jeju', days: 3, budget: 900_000 },
      `k_${randomUUID()}`,
    );
    const drift = await trip.recheck(session, 'submit_trip_request', r.input, r.snapshot);
    expect(drift).toMatchObject({
      ok: false,
      mismatches: expect.arrayContaining(['result_version: approved draft version 2, latest is 3']),
    });
  });

  it('stores budgets beyond 32-bit integers and fails their validation', async () => {
    await trip.execute(
      session,
      'draft_trip_request',
      { destination: 'Seoul', days: 2, budget: 5_000_000_000 },
      `k_${randomUUID()}`,
    );
    const v = await trip.execute(session, 'validate_trip_request', {}, `k_${randomUUID()}`);
    expect(v.values).toMatchObject({ ok: false });
    expect(await trip.permittedTools(session)).toEqual(['search_trip_policy', 'draft_trip_request']);
  });
});
