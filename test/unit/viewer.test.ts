import { prepareCreate } from '../../src/client/create-request';
import { applyDecision, initialGateState, type GateState } from '../../src/common/gate-state';
import { listViewerOf, unansweredViewerOf, viewerOf } from '../../src/common/viewer';
import { validatePolicy } from '../../src/policy/reviewer-policy';

const T0 = '2030-01-01T00:00:00.000Z';
const policy = validatePolicy(
  { rules: [{ action: 'refund.*', roles: ['finance'], min_approvals: 2 }] },
  'c'.repeat(64),
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

function gate(withPolicy = true): GateState {
  const { input } = prepareCreate(body, { agentId: 'agent_billing' }, { policy: withPolicy ? policy : undefined });
  return initialGateState(input, T0);
}

function approveAs(s: GateState, reviewer: string): void {
  applyDecision(
    s,
    {
      decision_id: `d_${reviewer}`,
      reviewer_id: reviewer,
      reviewer_roles: ['finance'],
      decision: 'approve',
      payload_sha256: s.payload_sha256,
    },
    T0,
  );
}

describe('who may decide, as the reviewer page is told', () => {
  it('lets an eligible reviewer decide, with no reason', () => {
    expect(viewerOf(gate(), { id: 'fin-1', roles: ['finance'] })).toEqual({ reviewer_id: 'fin-1', may_decide: true });
  });

  it('tells the requester it cannot decide its own request', () => {
    const v = viewerOf(gate(false), { id: 'agent_billing', roles: [] });
    expect(v).toMatchObject({ may_decide: false, code: 'self_approval' });
    expect(v.reason).toMatch(/You requested this action \(as agent_billing\)/);
  });

  it('tells a reviewer who already approved that another reviewer decides next', () => {
    const s = gate();
    approveAs(s, 'fin-1');
    expect(s.status).toBe('requested');
    const v = viewerOf(s, { id: 'fin-1', roles: ['finance'] });
    expect(v).toMatchObject({ may_decide: false, code: 'duplicate_reviewer' });
    expect(v.reason).toMatch(/already approved.*2 distinct reviewers \(1 so far\)/);
    expect(viewerOf(s, { id: 'fin-2', roles: ['finance'] }).may_decide).toBe(true);
  });

  it('names the roles needed to one without them', () => {
    const v = viewerOf(gate(), { id: 'eng-1', roles: ['engineering'] });
    expect(v).toMatchObject({ may_decide: false, code: 'ineligible_reviewer' });
    expect(v.reason).toBe('Deciding refund.create needs one of the roles finance; you have engineering.');
    expect(viewerOf(gate(), { id: 'eng-2' }).reason).toMatch(/you have none\.$/);
  });

  it('says a decided request takes no more decisions', () => {
    const s = gate(false);
    approveAs(s, 'rev-1');
    expect(s.status).toBe('approved');
    expect(viewerOf(s, { id: 'rev-2' })).toMatchObject({
      may_decide: false,
      code: 'illegal_transition',
      reason: 'This request is approved; it takes no more decisions.',
    });
  });

  it('does not count a decision being applied as a reason', () => {
    const s = gate(false);
    s.busy = true;
    expect(viewerOf(s, { id: 'rev-1' }).may_decide).toBe(true);
  });

  it('marks what a list item knows as partial: status and requester only', () => {
    const item = { status: 'requested', agent_id: 'agent_billing', closed: false };
    expect(listViewerOf(item, { id: 'rev-1' })).toEqual({ reviewer_id: 'rev-1', may_decide: true, partial: true });
    expect(listViewerOf(item, { id: 'agent_billing' })).toMatchObject({ may_decide: false, code: 'self_approval' });
    expect(listViewerOf({ ...item, status: 'denied' }, { id: 'rev-1' })).toMatchObject({
      may_decide: false,
      code: 'illegal_transition',
    });
    expect(listViewerOf({ ...item, closed: true }, { id: 'rev-1' }).may_decide).toBe(false);
    expect(unansweredViewerOf({ id: 'rev-1' })).toMatchObject({ may_decide: false, code: 'gate_unavailable' });
  });
});
