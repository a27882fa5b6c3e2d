import { randomUUID } from 'node:crypto';
import { digest } from '../../src/common/hashing';
import type { CallPlan, DomainAdapter } from '../../src/domain/types';
import { createTripDomain, listSubmissions, migrateTripStore } from '../../examples/trip';
import { openSqlite, type Db } from '../../src/store/db';

let db: Db;
let trip: DomainAdapter;
let session: string;

beforeEach(async () => {
  db = openSqlite(':memory:');
  await migrateTripStore(db);
  await migrateTripStore(db); // idempotent
  trip = createTripDomain(db);
  session = `run_${randomUUID()}`;
});
afterEach(() => db.close());

/** plan then execute, as the loop does for allowed calls. */
async function call(tool: string, args: Record<string, unknown>) {
  const plan = await trip.plan(session, tool, args);
  if (plan.policy !== 'allow') throw new Error(`expected allow for ${tool}, got ${JSON.stringify(plan)}`);
  return trip.execute(session, tool, plan.input, `key_${randomUUID()}`);
}

function approval(plan: CallPlan) {
  if (plan.policy !== 'require_approval') throw new Error(`expected require_approval, got ${JSON.stringify(plan)}`);
  return plan;
}

describe('trip adapter on SQLite', () => {
  it('answers policy questions without approval', async () => {
    const out = await call('search_trip_policy', { query: 'budget limit' });
    expect(out.content).toMatch(/1,000,000 KRW per day/);
  });

  it('plans a submission from the stored draft with evidence bound to its hashes', async () => {
    const d = await call('draft_trip_request', { destination: 'Busan', days: 2, budget: 800_000 });
    const v = await call('validate_trip_request', {});
    expect(v.values).toMatchObject({ ok: true, draft_id: d.values!.draft_id });
    // The model's args cannot smuggle values into the final input.
    const plan = approval(await trip.plan(session, 'submit_trip_request', {}));
    const input = {
      session_id: session,
      draft_id: d.values!.draft_id,
      draft_version: 1,
      destination: 'Busan',
      days: 2,
      budget: 800_000,
    };
    expect(plan.input).toEqual(input);
    expect(plan.approvals_required).toBe(1);
    expect(plan.evidence).toEqual({
      action: 'trip.submit',
      target: d.values!.draft_id,
      summary: 'Business trip to Busan, 2 days, budget 800,000 KRW',
      blast_radius: { budget_krw: 800_000, days: 2 },
      preconditions: { draft_id: d.values!.draft_id, draft_version: 1, validation_sha256: v.values!.validation_sha256 },
      snapshot: {
        tool: 'submit_trip_request',
        args_sha256: digest(input),
        result_version: 1,
        result_sha256: digest({ destination: 'Busan', days: 2, budget: 800_000 }),
        validation_sha256: v.values!.validation_sha256,
      },
    });
  });

  it('asks two approvers above 2,000,000 KRW and none under 300,000 KRW', async () => {
    await call('draft_trip_request', { destination: 'Jeju', days: 3, budget: 2_500_000 });
    await call('validate_trip_request', {});
    expect(approval(await trip.plan(session, 'submit_trip_request', {})).approvals_required).toBe(2);
    await call('draft_trip_request', { destination: 'Jeju', days: 1, budget: 299_999 });
    await call('validate_trip_request', {});
    expect((await trip.plan(session, 'submit_trip_request', {})).policy).toBe('allow');
  });

  it('permits only drafting after a failed validation and blocks everything else with a reason', async () => {
    await call('draft_trip_request', { destination: 'Busan', days: 31, budget: 800_000 });
    const v = await call('validate_trip_request', {});
    expect(v.values).toMatchObject({ ok: false });
    expect(v.content).toMatch(/failed validation: days must be between 1 and 30/);
    expect(await trip.permittedTools(session)).toEqual(['search_trip_policy', 'draft_trip_request']);
    for (const tool of ['validate_trip_request', 'submit_trip_request']) {
      const plan = await trip.plan(session, tool, {});
      expect(plan).toEqual({
        policy: 'block',
        reason: expect.stringMatching(/Only draft_trip_request is permitted now/),
      });
    }
    await call('draft_trip_request', { destination: 'Busan', days: 2, budget: 800_000 });
    expect(await trip.permittedTools(session)).toContain('validate_trip_request');
  });

  it('blocks submit without a validation, and again after the draft changed', async () => {
    await call('draft_trip_request', { destination: 'Busan', days: 2, budget: 800_000 });
    expect(await trip.plan(session, 'submit_trip_request', {})).toEqual({
      policy: 'block',
      reason: expect.stringMatching(/has not been validated/),
    });
    await call('validate_trip_request', {});
    expect((await trip.plan(session, 'submit_trip_request', {})).policy).toBe('require_approval');
    await call('draft_trip_request', { destination: 'Busan', days: 2, budget: 900_000 });
    expect(await trip.plan(session, 'submit_trip_request', {})).toEqual({
      policy: 'block',
      reason: expect.stringMatching(/version 2\) has not been validated/),
    });
  });

  it('fails validate as a tool error when there is no draft', async () => {
    await expect(call('validate_trip_request', {})).rejects.toThrow(/no draft to validate/);
  });

  it('recheck passes an untouched snapshot and names a new draft version made after approval', async () => {
    await call('draft_trip_request', { destination: 'Busan', days: 2, budget: 800_000 });
    await call('validate_trip_request', {});
    const plan = approval(await trip.plan(session, 'submit_trip_request', {}));
    expect(await trip.recheck(session, 'submit_trip_request', plan.input, plan.evidence.snapshot)).toEqual({
      ok: true,
    });
    await call('draft_trip_request', { destination: 'Busan', days: 2, budget: 1_500_000 });
    await call('validate_trip_request', {});
    const r = await trip.recheck(session, 'submit_trip_request', plan.input, plan.evidence.snapshot);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.mismatches).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^draft_id:/),
        'result_version: approved draft version 1, latest is 2',
        expect.stringMatching(/^result_sha256:/),
        expect.stringMatching(/^validation_sha256:/),
      ]),
    );
    expect(r.reason).toMatch(/no longer matches/);
  });

  it('recheck names a draft that was already submitted', async () => {
    await call('draft_trip_request', { destination: 'Busan', days: 2, budget: 800_000 });
    await call('validate_trip_request', {});
    const plan = approval(await trip.plan(session, 'submit_trip_request', {}));
    await trip.execute(session, 'submit_trip_request', plan.input, 'appr_first');
    const r = await trip.recheck(session, 'submit_trip_request', plan.input, plan.evidence.snapshot);
    expect(r).toMatchObject({
      ok: false,
      mismatches: [expect.stringMatching(/^idempotency: .*already submitted .*appr_first/)],
    });
  });

  it('submits once when executed twice with one key, and lists the submission with its request id', async () => {
    await call('draft_trip_request', { destination: 'Busan', days: 2, budget: 800_000 });
    await call('validate_trip_request', {});
    const plan = approval(await trip.plan(session, 'submit_trip_request', {}));
    const first = await trip.execute(session, 'submit_trip_request', plan.input, 'appr_1');
    const second = await trip.execute(session, 'submit_trip_request', plan.input, 'appr_1');
    expect(second).toEqual(first);
    expect(first.content).toMatch(
      /^Trip request submitted: Busan, 2 days, budget 800,000 KRW \(submission sub_[0-9a-f-]+\)\.$/,
    );
    const subs = await listSubmissions(db);
    expect(subs).toEqual([{ ...first.values, request_id: 'appr_1' }]);
    expect(subs[0]).toEqual({
      submission_id: expect.stringMatching(/^sub_/),
      draft_id: plan.input.draft_id,
      destination: 'Busan',
      days: 2,
      budget: 800_000,
      request_id: 'appr_1',
    });
  });

  it('refuses a second submission of one draft under another key, and a key reused for other input', async () => {
    await call('draft_trip_request', { destination: 'Busan', days: 2, budget: 800_000 });
    await call('validate_trip_request', {});
    const plan = approval(await trip.plan(session, 'submit_trip_request', {}));
    await trip.execute(session, 'submit_trip_request', plan.input, 'appr_1');
    await expect(trip.execute(session, 'submit_trip_request', plan.input, 'appr_2')).rejects.toThrow(
      /already submitted/,
    );
    await expect(trip.execute(session, 'submit_trip_request', { ...plan.input, budget: 1 }, 'appr_1')).rejects.toThrow(
      /other input/,
    );
    expect(await listSubmissions(db)).toHaveLength(1);
  });

  it('runs a draft once per key, so a retried draft call makes no second version', async () => {
    const a = await trip.execute(session, 'draft_trip_request', { destination: 'Busan', days: 2, budget: 1 }, 'k');
    const b = await trip.execute(session, 'draft_trip_request', { destination: 'Busan', days: 2, budget: 1 }, 'k');
    expect(b).toEqual(a);
    const c = await call('draft_trip_request', { destination: 'Busan', days: 2, budget: 1 });
    expect(c.values).toMatchObject({ draft_version: 2 });
  });
});
