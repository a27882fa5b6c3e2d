import type { DecisionMessage } from '../../src/common/decision';
import { EvidencePayload, payloadSha256 } from '../../src/common/evidence';
import { applyDecision, initialGateState, refuseDecision, type GateState } from '../../src/common/gate-state';
import { prepareCreate } from '../../src/client/create-request';
import { validatePolicy } from '../../src/policy/reviewer-policy';
import { GateError } from '../../src/client/gate-error';

const T0 = '2030-01-01T00:00:00.000Z';
const POLICY_SHA = 'b'.repeat(64);
const policy = validatePolicy(
  { rules: [{ action: 'refund.*', roles: ['finance'], min_approvals: 2 }] },
  POLICY_SHA,
  'rules.yaml',
);
const body = {
  correlation_id: 'corr_1',
  trigger_event_id: 'evt_1',
  action: 'refund.create',
  target: 'ch_1',
  summary: 'Refund 40 EUR',
  args: { charge: 'ch_1', amount: 4000 },
};

function gateFor(extra: Record<string, unknown> = {}): GateState {
  const { input } = prepareCreate({ ...body, ...extra }, { agentId: 'agent_billing' }, { policy, nowMs: 0 });
  return initialGateState(input, T0);
}

let seq = 0;
function msg(s: GateState, reviewer: string, roles: string[] | undefined): DecisionMessage {
  seq += 1;
  return {
    decision_id: `dec_${seq}`,
    reviewer_id: reviewer,
    ...(roles ? { reviewer_roles: roles } : {}),
    decision: 'approve',
    payload_sha256: s.payload_sha256,
  };
}

describe('reviewer eligibility', () => {
  it('binds the rule that applied and the rule file hash into the evidence and its hash', () => {
    const s = gateFor();
    expect(s.payload.reviewer_policy).toEqual({
      rule: 'refund.*',
      roles: ['finance'],
      approvals_required: 2,
      policy_sha256: POLICY_SHA,
    });
    expect(s.approvals_required).toBe(2);
    expect(s.payload_sha256).toBe(payloadSha256(EvidencePayload.parse(s.payload)));
    const { input: loose } = prepareCreate(body, { agentId: 'agent_billing' }, { nowMs: 0 });
    expect(loose.payload.reviewer_policy).toBeUndefined();
    expect(loose.payload_sha256).not.toBe(s.payload_sha256);
  });

  it('refuses a reviewer without a needed role with 403 details naming the roles', () => {
    const s = gateFor();
    const r = refuseDecision(s, msg(s, 'bob', ['engineering']));
    expect(r).toEqual({
      type: 'IneligibleReviewer',
      message: expect.stringMatching(/bob may not decide refund\.create: it needs one of the roles finance/),
      details: {
        roles_needed: ['finance'],
        reviewer_roles: ['engineering'],
        rule: 'refund.*',
        policy_sha256: POLICY_SHA,
      },
    });
    // A message without roles (a signal from a service that does not know them) is refused the same way.
    expect(refuseDecision(s, msg(s, 'svc', undefined))?.type).toBe('IneligibleReviewer');
  });

  it('counts only eligible, distinct reviewers toward the quorum', () => {
    const s = gateFor();
    const first = msg(s, 'alice', ['finance']);
    expect(refuseDecision(s, first)).toBeNull();
    applyDecision(s, first, T0);
    expect(s.status).toBe('requested');
    expect(refuseDecision(s, msg(s, 'bob', ['engineering']))?.type).toBe('IneligibleReviewer');
    expect(refuseDecision(s, msg(s, 'alice', ['finance']))?.type).toBe('DuplicateReviewer');
    const second = msg(s, 'carol', ['finance', 'engineering']);
    expect(refuseDecision(s, second)).toBeNull();
    applyDecision(s, second, T0);
    expect(s.status).toBe('approved');
    expect(s.votes.map((v) => v.reviewer_id)).toEqual(['alice', 'carol']);
  });

  it('checks roles before the state, so an ineligible reviewer learns nothing of it', () => {
    const s = gateFor();
    s.status = 'denied';
    expect(refuseDecision(s, msg(s, 'bob', []))?.type).toBe('IneligibleReviewer');
  });

  it('lets a request narrow the roles and raise the approvals, never widen or lower them', () => {
    expect(gateFor({ approvals_required: 3 }).approvals_required).toBe(3);
    expect(gateFor({ approvals_required: 1 }).approvals_required).toBe(2);
    expect(() => gateFor({ reviewer_roles: ['finance', 'support'] })).toThrow(GateError);
    const thrown = ((): unknown => {
      try {
        gateFor({ reviewer_roles: ['support'] });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(thrown).toMatchObject({ status: 422, details: [{ path: '$.reviewer_roles' }] });
  });

  it('without a rule file a request may still name its own roles', () => {
    const { input } = prepareCreate({ ...body, reviewer_roles: ['ops'] }, { agentId: 'a' }, { nowMs: 0 });
    const s = initialGateState(input, T0);
    expect(s.payload.reviewer_policy).toEqual({
      rule: null,
      roles: ['ops'],
      approvals_required: 1,
      policy_sha256: null,
    });
    expect(refuseDecision(s, msg(s, 'bob', ['finance']))?.type).toBe('IneligibleReviewer');
    expect(refuseDecision(s, msg(s, 'olga', ['ops']))).toBeNull();
  });
});
