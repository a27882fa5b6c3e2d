import type { DecisionMessage } from '../../src/common/decision';
import { EvidencePayload, payloadSha256 } from '../../src/common/evidence';
import {
  applyDecision,
  applyEvent,
  consumeApproval,
  initialGateState,
  mergeArgs,
  previousDecision,
  refuseCancel,
  refuseConsume,
  refuseDecision,
  type GateInput,
  type GateState,
} from '../../src/common/gate-state';
import { digest } from '../../src/common/hashing';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../../src/common/lifecycle';

const T0 = '2030-01-01T00:00:00.000Z';
const T1 = '2030-01-01T00:05:00.000Z';
const AGENT = 'agent_billing';

const payload: EvidencePayload = EvidencePayload.parse({
  request_id: 'appr_test_0001',
  correlation_id: 'corr_1',
  agent_id: AGENT,
  trigger_event_id: 'evt_ticket_4081',
  action: 'stripe.refund.create',
  target: 'ch_3MvICBLkdIwHu7ix0Yx87a11',
  summary: 'Full refund for damaged shipment per ticket #4081',
  blast_radius: { currency: 'usd', amount_cents: 14500 },
  args: { charge: 'ch_3MvICBLkdIwHu7ix0Yx87a11', amount: 14500, reason: 'fraudulent' },
  preconditions: { account_status: 'active' },
  idempotency_key: 'idem_1',
  expires_at: '2030-01-02T00:00:00.000Z',
});
const SHA = payloadSha256(payload);

function gate(over: Partial<GateInput> = {}, status: ApprovalStatus = 'requested'): GateState {
  const input: GateInput = {
    payload,
    payload_sha256: SHA,
    approvals_required: 1,
    executor: 'external',
    consume_ttl_seconds: 3600,
    create_sha256: SHA,
    ...over,
  };
  const s = initialGateState(input, T0);
  s.status = status;
  return s;
}

let seq = 0;
function msg(over: Partial<DecisionMessage> & Record<string, unknown> = {}): DecisionMessage {
  seq += 1;
  return {
    decision_id: `dec_${seq}`,
    reviewer_id: 'alice',
    decision: 'approve',
    payload_sha256: SHA,
    ...over,
  } as DecisionMessage;
}

describe('refuseDecision', () => {
  it('accepts a well-formed approve from another reviewer', () => {
    expect(refuseDecision(gate(), msg())).toBeNull();
  });

  it.each([
    { name: 'a capitalised decision word "Approve"', raw: { decision: 'Approve' }, path: 'decision' },
    { name: 'an unknown decision word', raw: { decision: 'yes' }, path: 'decision' },
    { name: 'a reject without reason', raw: { decision: 'reject' }, path: 'reason' },
    { name: 'a reject with a blank reason', raw: { decision: 'reject', reason: '   ' }, path: 'reason' },
    { name: 'a modify without args', raw: { decision: 'modify' }, path: 'args' },
    { name: 'a modify with empty args', raw: { decision: 'modify', args: {} }, path: 'args' },
    { name: 'a missing reviewer', raw: { reviewer_id: undefined }, path: 'reviewer_id' },
    { name: 'an empty decision id', raw: { decision_id: '' }, path: 'decision_id' },
    { name: 'a missing payload hash', raw: { payload_sha256: undefined }, path: 'payload_sha256' },
  ])('refuses $name as InvalidInput with details', ({ raw, path }) => {
    const r = refuseDecision(gate(), { ...msg(), ...raw });
    expect(r?.type).toBe('InvalidInput');
    expect(Array.isArray(r?.details)).toBe(true);
    const details = r!.details as { path: string; message: string }[];
    expect(details.length).toBeGreaterThan(0);
    expect(details.map((d) => d.path)).toContain(path);
    for (const d of details) expect(typeof d.message).toBe('string');
  });

  it('accepts a message carrying a field a later release added, and ignores that field', () => {
    expect(refuseDecision(gate(), { ...msg(), field_of_a_later_release: { level: 2 } })).toBeNull();
  });

  it.each([null, undefined, 'approve', 42, []])('refuses a non-object message %p as InvalidInput', (raw) => {
    expect(refuseDecision(gate(), raw)?.type).toBe('InvalidInput');
  });

  it('refuses a decision that names another payload_sha256 as HashMismatch', () => {
    const r = refuseDecision(gate(), msg({ payload_sha256: digest({ other: true }) }));
    expect(r?.type).toBe('HashMismatch');
    expect(r?.message).toContain(SHA.slice(0, 12));
  });

  it.each(['approve', 'modify', 'reject'] as const)(
    'refuses the requesting agent deciding (%s) on its own request as SelfApproval',
    (decision) => {
      const r = refuseDecision(
        gate(),
        msg({ reviewer_id: AGENT, decision, reason: 'r', args: decision === 'modify' ? { amount: 1 } : undefined }),
      );
      expect(r?.type).toBe('SelfApproval');
      expect(r?.message).toContain(AGENT);
    },
  );

  it('refuses the same reviewer twice under a quorum of 2 as DuplicateReviewer', () => {
    const s = gate({ approvals_required: 2 });
    applyDecision(s, msg({ reviewer_id: 'alice' }), T1);
    expect(s.status).toBe('requested');
    const r = refuseDecision(s, msg({ reviewer_id: 'alice' }));
    expect(r?.type).toBe('DuplicateReviewer');
    expect(r?.message).toContain('alice');
    expect(refuseDecision(s, msg({ reviewer_id: 'bob' }))).toBeNull();
  });

  const settled = APPROVAL_STATUSES.filter((st) => st !== 'requested');
  it.each(
    settled.flatMap((status) => (['approve', 'modify', 'reject'] as const).map((decision) => ({ status, decision }))),
  )('refuses $decision on a $status request as IllegalTransition', ({ status, decision }) => {
    const r = refuseDecision(
      gate({}, status),
      msg({ decision, reason: 'no', args: decision === 'modify' ? { amount: 1 } : undefined }),
    );
    expect(r?.type).toBe('IllegalTransition');
    expect(r?.message).toContain(status);
  });

  it('reports the illegal transition before a hash mismatch on a settled request', () => {
    expect(refuseDecision(gate({}, 'denied'), msg({ payload_sha256: 'f'.repeat(64) }))?.type).toBe('IllegalTransition');
  });

  it('refuses any decision as Busy while a modification is being validated', () => {
    const s = gate();
    s.busy = true;
    expect(refuseDecision(s, msg({ reviewer_id: 'bob' }))?.type).toBe('Busy');
    expect(refuseDecision(s, msg({ decision: 'reject', reason: 'no' }))?.type).toBe('Busy');
  });
});

describe('applyDecision', () => {
  it('approves with quorum 1 and emits one approval.approved event', () => {
    const s = gate();
    const d = msg({ reviewer_id: 'alice', note: 'looks right' });
    const { result, events } = applyDecision(s, d, T1);
    expect(s.status).toBe('approved');
    expect(s.decision).toEqual({ decision: 'approve', reviewer_id: 'alice', note: 'looks right', at: T1 });
    expect(s.updated_at).toBe(T1);
    expect(s.final_args).toEqual(payload.args);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      event_type: 'approval.approved',
      actor_type: 'human',
      actor_id: 'alice',
      note: 'looks right',
    });
    expect(events[0]!.data).toMatchObject({
      decision_id: d.decision_id,
      reviewers: ['alice'],
      args_sha256: digest(payload.args),
    });
    expect(result).toEqual({
      request_id: payload.request_id,
      decision_id: d.decision_id,
      decision: 'approve',
      reviewer_id: 'alice',
      status: 'approved',
      approvals: 1,
      approvals_required: 1,
      applied: true,
    });
  });

  it('records how each reviewer authenticated, and their roles, in every event of the decision and in the votes', () => {
    const s = gate({ approvals_required: 2 });
    const byKey = { method: 'api_key' as const, key_id: 'alice' };
    const byToken = { method: 'oidc' as const, issuer: 'https://idp.example.com', subject: 'bob' };
    const modify = applyDecision(
      s,
      msg({
        reviewer_id: 'alice',
        decision: 'modify',
        args: { amount: 9000 },
        reviewer_auth: byKey,
        reviewer_roles: ['finance'],
      }),
      T0,
    );
    expect(modify.events.map((e) => [e.event_type, e.data?.auth, e.data?.reviewer_roles])).toEqual([
      ['approval.modified', byKey, ['finance']],
      ['approval.vote_recorded', byKey, ['finance']],
    ]);
    const approve = applyDecision(s, msg({ reviewer_id: 'bob', reviewer_auth: byToken }), T1);
    expect(approve.events[0]!.data).toMatchObject({ auth: byToken, reviewer_roles: [] });
    expect(s.votes.map((v) => [v.reviewer_id, v.auth, v.roles])).toEqual([
      ['alice', byKey, ['finance']],
      ['bob', byToken, []],
    ]);
    expect(s.decision).toMatchObject({ reviewer_id: 'bob', auth: byToken });
    const denied = gate();
    const reject = applyDecision(denied, msg({ decision: 'reject', reason: 'no', reviewer_auth: byKey }), T1);
    expect(reject.events[0]!.data).toMatchObject({ auth: byKey, reviewer_roles: [] });
  });

  it('writes the events it always wrote for a decision without authentication facts (a signal, or a replayed history)', () => {
    const s = gate();
    const d = msg({ reviewer_id: 'alice', reviewer_roles: ['finance'] });
    const { events } = applyDecision(s, d, T1);
    // Exactly these keys: a replayed decision must hash to the event its gate stored.
    expect(events[0]!.data).toEqual({
      decision_id: d.decision_id,
      reviewers: ['alice'],
      args_sha256: digest(payload.args),
    });
    expect(s.votes[0]).toEqual({
      reviewer_id: 'alice',
      decision_id: d.decision_id,
      decision: 'approve',
      note: undefined,
      at: T1,
    });
  });

  it('records a first vote under quorum 2 and approves on the second distinct reviewer', () => {
    const s = gate({ approvals_required: 2 });
    const first = applyDecision(s, msg({ reviewer_id: 'alice' }), T0);
    expect(s.status).toBe('requested');
    expect(s.decision).toBeUndefined();
    expect(first.events.map((e) => e.event_type)).toEqual(['approval.vote_recorded']);
    expect(first.events[0]!.data).toMatchObject({ approvals: 1, approvals_required: 2 });
    expect(first.result).toMatchObject({ status: 'requested', approvals: 1, approvals_required: 2 });

    const second = applyDecision(s, msg({ reviewer_id: 'bob' }), T1);
    expect(s.status).toBe('approved');
    expect(second.events.map((e) => e.event_type)).toEqual(['approval.approved']);
    expect(second.events[0]!.data).toMatchObject({ reviewers: ['alice', 'bob'] });
    expect(s.votes.map((v) => v.reviewer_id)).toEqual(['alice', 'bob']);
    expect(second.result).toMatchObject({ status: 'approved', approvals: 2 });
  });

  it('denies on reject with the reason as status_reason', () => {
    const s = gate();
    const { result, events } = applyDecision(
      s,
      msg({ decision: 'reject', reviewer_id: 'bob', reason: 'amount too high', note: 'see ticket' }),
      T1,
    );
    expect(s.status).toBe('denied');
    expect(s.status_reason).toBe('amount too high');
    expect(s.decision).toMatchObject({
      decision: 'reject',
      reviewer_id: 'bob',
      reason: 'amount too high',
      note: 'see ticket',
    });
    expect(events).toEqual([
      expect.objectContaining({
        event_type: 'approval.denied',
        actor_type: 'human',
        actor_id: 'bob',
        note: 'amount too high',
        data: expect.objectContaining({ reviewer_note: 'see ticket' }),
      }),
    ]);
    expect(result.status).toBe('denied');
  });

  it('lets one rejection deny a request that already has a vote under quorum 2', () => {
    const s = gate({ approvals_required: 2 });
    applyDecision(s, msg({ reviewer_id: 'alice' }), T0);
    applyDecision(s, msg({ reviewer_id: 'bob', decision: 'reject', reason: 'no' }), T1);
    expect(s.status).toBe('denied');
  });

  it('applies an external modify: merged args, new digest, modifier and executed values, modified then approved', () => {
    const s = gate();
    const patch = { amount: 7000 };
    const args = mergeArgs(s.final_args, patch);
    const d = msg({ decision: 'modify', reviewer_id: 'carol', args: patch, note: 'half refund' });
    // The workflow's external-executor path: merged args, executed values = the reviewer's patch.
    const { events, result } = applyDecision(s, d, T1, { args, executed_values: patch });
    expect(s.final_args).toEqual({ charge: 'ch_3MvICBLkdIwHu7ix0Yx87a11', amount: 7000, reason: 'fraudulent' });
    expect(s.final_args_sha256).toBe(digest(s.final_args));
    expect(s.final_args_sha256).not.toBe(digest(payload.args));
    expect(s.modified_by).toBe('carol');
    expect(s.executed_values).toEqual({ amount: 7000 });
    expect(s.status).toBe('approved');
    expect(s.decision).toMatchObject({ decision: 'modify', reviewer_id: 'carol' });
    expect(events.map((e) => e.event_type)).toEqual(['approval.modified', 'approval.approved']);
    expect(events[0]!.data).toMatchObject({ args, args_sha256: s.final_args_sha256, approvals_required: 1 });
    expect(events[1]!.data).toMatchObject({ reviewers: ['carol'], args_sha256: s.final_args_sha256 });
    expect(result).toMatchObject({ decision: 'modify', status: 'approved', approvals: 1 });
    // The evidence payload itself stays immutable.
    expect(s.payload.args).toEqual(payload.args);
    expect(payloadSha256(s.payload)).toBe(SHA);
  });

  it('merges the reviewer args over the requested ones when no modification is passed', () => {
    const s = gate();
    applyDecision(s, msg({ decision: 'modify', reviewer_id: 'carol', args: { amount: 100, memo: 'x' } }), T1);
    expect(s.final_args).toEqual({ ...payload.args, amount: 100, memo: 'x' });
    expect(s.final_args_sha256).toBe(digest(s.final_args));
  });

  it('stays requested after a modification that raises approvals_required to 2, counting the modifier', () => {
    const s = gate();
    const args = { ...payload.args, amount: 2_000_000 };
    const { events, result } = applyDecision(
      s,
      msg({ decision: 'modify', reviewer_id: 'carol', args: { amount: 2_000_000 } }),
      T1,
      { args, approvals_required: 2 },
    );
    expect(s.status).toBe('requested');
    expect(s.approvals_required).toBe(2);
    expect(s.votes.map((v) => v.reviewer_id)).toEqual(['carol']);
    expect(events.map((e) => e.event_type)).toEqual(['approval.modified', 'approval.vote_recorded']);
    expect(result).toMatchObject({ status: 'requested', approvals: 1, approvals_required: 2 });
    expect(refuseDecision(s, msg({ reviewer_id: 'carol', args_sha256: s.final_args_sha256 }))?.type).toBe(
      'DuplicateReviewer',
    );
    applyDecision(s, msg({ reviewer_id: 'dave', args_sha256: s.final_args_sha256 }), T1);
    expect(s.status).toBe('approved');
    expect(s.final_args).toEqual(args);
  });

  it('drops votes cast for the args a modification replaced', () => {
    const s = gate({ approvals_required: 2 });
    applyDecision(s, msg({ reviewer_id: 'alice' }), T0);
    applyDecision(s, msg({ decision: 'modify', reviewer_id: 'carol', args: { amount: 1 } }), T1, {
      args: { ...payload.args, amount: 1 },
    });
    expect(s.status).toBe('requested');
    expect(s.votes.map((v) => v.reviewer_id)).toEqual(['carol']);
    expect(refuseDecision(s, msg({ reviewer_id: 'alice', args_sha256: s.final_args_sha256 }))).toBeNull();
  });

  it('never lowers the quorum through a modification', () => {
    const s = gate({ approvals_required: 2 });
    applyDecision(s, msg({ decision: 'modify', reviewer_id: 'carol', args: { amount: 1 } }), T1, {
      args: { amount: 1 },
      approvals_required: 1,
    });
    expect(s.approvals_required).toBe(2);
    expect(s.status).toBe('requested');
  });

  it('remembers each result by decision id so a redelivery can be answered with it', () => {
    const s = gate({ approvals_required: 2 });
    const d1 = msg({ reviewer_id: 'alice' });
    const r1 = applyDecision(s, d1, T0).result;
    expect(previousDecision(s, d1)).toEqual({ result: r1 });
    const d2 = msg({ reviewer_id: 'bob' });
    applyDecision(s, d2, T1);
    // The first result is kept as it was when applied, not rewritten by later decisions.
    expect(previousDecision(s, d1)).toMatchObject({ result: { status: 'requested', approvals: 1 } });
    expect(previousDecision(s, d2)).toMatchObject({ result: { status: 'approved', approvals: 2 } });
    expect(previousDecision(s, msg({ decision_id: 'never-sent' }))).toBeUndefined();
  });

  it('scopes decision ids by reviewer and refuses an id reused for another decision', () => {
    const s = gate({ approvals_required: 2 });
    applyDecision(s, msg({ reviewer_id: 'alice', decision_id: 'd-1' }), T0);
    // Another reviewer's "d-1" is a different decision, not a retry of alice's.
    expect(
      previousDecision(s, msg({ reviewer_id: 'bob', decision_id: 'd-1', decision: 'reject', reason: 'no' })),
    ).toBeUndefined();
    // alice reusing "d-1" for a rejection is refused visibly.
    expect(
      previousDecision(
        s,
        msg({ reviewer_id: 'alice', decision_id: 'd-1', decision: 'reject', reason: 'changed my mind' }),
      ),
    ).toMatchObject({ refusal: { type: 'DecisionIdReused' } });
  });

  it('binds approvals after a modification to the modified args', () => {
    const s = gate({ approvals_required: 2 });
    applyDecision(s, msg({ decision: 'modify', reviewer_id: 'carol', args: { amount: 99 } }), T0);
    expect(refuseDecision(s, msg({ reviewer_id: 'dave' }))).toMatchObject({ type: 'HashMismatch' });
    expect(refuseDecision(s, msg({ reviewer_id: 'dave', args_sha256: 'c'.repeat(64) }))).toMatchObject({
      type: 'HashMismatch',
    });
    expect(refuseDecision(s, msg({ reviewer_id: 'dave', args_sha256: s.final_args_sha256 }))).toBeNull();
    expect(refuseDecision(s, msg({ reviewer_id: 'dave', decision: 'reject', reason: 'no' }))).toBeNull();
  });

  it.each(['toString', 'constructor', 'hasOwnProperty'])(
    'does not mistake the inherited name %s for a previous decision',
    (id) => {
      expect(previousDecision(gate(), msg({ decision_id: id }))).toBeUndefined();
    },
  );

  // Regression (fixed): `s.decisions[d.decision_id] = result` with decision_id "__proto__" sets the
  // object's prototype instead of storing an own entry, so the result is forgotten and a
  // redelivery is refused (or, for other states, re-evaluated) instead of answered.
  it('remembers a decision whose id is "__proto__"', () => {
    const s = gate();
    const d = msg({ decision_id: '__proto__' });
    const { result } = applyDecision(s, d, T1);
    expect(previousDecision(s, d)).toEqual({ result });
  });
});

describe('refuseConsume', () => {
  it('lets the requesting agent consume an approved external request', () => {
    expect(refuseConsume(gate({}, 'approved'), AGENT)).toBeNull();
  });

  it.each(APPROVAL_STATUSES.filter((st) => st !== 'approved'))(
    'refuses a consume of a %s request as IllegalTransition',
    (status) => {
      const r = refuseConsume(gate({}, status), AGENT);
      expect(r?.type).toBe('IllegalTransition');
      expect(r?.message).toContain('consume');
      expect(r?.message).toContain(status);
    },
  );

  it.each(['someone_else', '', undefined as unknown as string])('refuses consumer %p as NotRequester', (consumer) => {
    expect(refuseConsume(gate({}, 'approved'), consumer)?.type).toBe('NotRequester');
  });

  it('refuses an outside consume of a tool-executor request, even by the requester', () => {
    const r = refuseConsume(gate({ executor: 'tool' }, 'approved'), AGENT);
    expect(r?.type).toBe('IllegalTransition');
    expect(r?.message).toMatch(/tool executor/);
  });

  it('refuses a second consume once the first moved the request to consumed', () => {
    const s = gate({}, 'approved');
    expect(refuseConsume(s, AGENT)).toBeNull();
    expect(applyEvent(s, 'consume', T1, 'consumed')).toBeNull();
    expect(refuseConsume(s, AGENT)?.type).toBe('IllegalTransition');
  });
});

describe('refuseCancel', () => {
  it.each([
    { who: 'the requesting agent', id: AGENT, type: 'agent' as const },
    { who: 'the system (owning run)', id: 'run_1', type: 'system' as const },
  ])('lets $who cancel a pending request', ({ id, type }) => {
    expect(refuseCancel(gate(), id, type)).toBeNull();
  });

  it('refuses another agent as NotRequester without naming the requester', () => {
    const r = refuseCancel(gate(), 'other_agent', 'agent');
    expect(r?.type).toBe('NotRequester');
    expect(r?.message).not.toContain(AGENT);
  });

  it.each(APPROVAL_STATUSES.filter((st) => st !== 'requested'))('refuses a cancel once the request is %s', (status) => {
    expect(refuseCancel(gate({}, status), AGENT, 'agent')?.type).toBe('IllegalTransition');
    expect(refuseCancel(gate({}, status), 'run_1', 'system')?.type).toBe('IllegalTransition');
  });

  // Regression (fixed): only actorType === 'agent' is checked against the requester, so a message that
  // arrives by signal/update with any other actor_type ("human", missing) cancels anyone's
  // request. The workflow passes `m?.actor_type` from the wire unvalidated.
  it.each(['human', undefined, 'AGENT'])(
    'refuses an actor_type %p that is neither the requester agent nor the system',
    (actorType) => {
      expect(refuseCancel(gate(), 'mallory', actorType as unknown as 'agent')?.type).toBe('NotRequester');
    },
  );
});

// The "state leak": another agent's consume or cancel must not learn the request's state.
describe('refusal order: the requester before the state', () => {
  it.each(APPROVAL_STATUSES)(
    'refuses another agent consuming a %s request as NotRequester, naming no state',
    (status) => {
      const r = refuseConsume(gate({}, status), 'other_agent');
      expect(r).toEqual({ type: 'NotRequester', message: 'only the requesting agent may consume this request' });
    },
  );

  it.each(APPROVAL_STATUSES)(
    'refuses another agent cancelling a %s request as NotRequester, naming no state',
    (status) => {
      const r = refuseCancel(gate({}, status), 'other_agent', 'agent');
      expect(r).toEqual({ type: 'NotRequester', message: 'only the requesting agent may cancel this request' });
    },
  );
});

describe('applyEvent', () => {
  it.each([
    { from: 'requested', event: 'expire', to: 'expired' },
    { from: 'requested', event: 'cancel', to: 'cancelled' },
    { from: 'approved', event: 'consume', to: 'consumed' },
    { from: 'approved', event: 'invalidate', to: 'invalidated' },
    { from: 'approved', event: 'expire', to: 'expired' },
  ] as const)('moves $from to $to on $event with the reason and time', ({ from, event, to }) => {
    const s = gate({}, from);
    expect(applyEvent(s, event, T1, 'because')).toBeNull();
    expect(s.status).toBe(to);
    expect(s.status_reason).toBe('because');
    expect(s.updated_at).toBe(T1);
  });

  it.each([
    { from: 'requested', event: 'consume' },
    { from: 'requested', event: 'invalidate' },
    { from: 'approved', event: 'cancel' },
    { from: 'denied', event: 'expire' },
    { from: 'consumed', event: 'consume' },
    { from: 'expired', event: 'cancel' },
  ] as const)('refuses $event on $from and leaves the state untouched', ({ from, event }) => {
    const s = gate({}, from);
    const before = structuredClone(s);
    expect(applyEvent(s, event, T1, 'because')?.type).toBe('IllegalTransition');
    expect(s).toEqual(before);
  });
});

describe('consumeApproval', () => {
  it('consumes an approved gate and records who consumed it and when', () => {
    const s = gate({}, 'approved');
    expect(consumeApproval(s, 'agent_billing', T1, 'consumed by agent_billing')).toBeNull();
    expect(s).toMatchObject({
      status: 'consumed',
      status_reason: 'consumed by agent_billing',
      updated_at: T1,
      consumed_at: T1,
      consumed_by: 'agent_billing',
    });
  });

  it.each(['requested', 'consumed', 'denied'] as const)('refuses a gate that is %s and records no consumer', (from) => {
    const s = gate({}, from);
    const before = structuredClone(s);
    expect(consumeApproval(s, 'agent_billing', T1, 'consumed')?.type).toBe('IllegalTransition');
    expect(s).toEqual(before);
  });
});

describe('initialGateState', () => {
  it('starts requested with the requested args, their digest and no votes', () => {
    const s = gate({ approvals_required: 2, run_id: 'run_1', call_id: 'c1' });
    expect(s).toMatchObject({
      request_id: payload.request_id,
      status: 'requested',
      approvals_required: 2,
      votes: [],
      busy: false,
      decisions: {},
      final_args: payload.args,
      final_args_sha256: digest(payload.args),
      created_at: T0,
      expires_at: payload.expires_at,
      run_id: 'run_1',
      call_id: 'c1',
    });
  });
});
