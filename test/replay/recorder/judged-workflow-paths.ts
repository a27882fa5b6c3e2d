import type { WorkflowPath } from './workflow-kit';

// requireApproval and withApproval under a version 2 rule file (docs/policy.md), recorded from 0.2.0 on.

/**
 * The worker's rule file: small refunds are allowed, very large ones blocked, the rest need
 * two finance approvals (as 0.1.0's refund rule asked).
 */
export const JUDGED_WORKFLOW_RULES = `version: 2
defaults: { effect: require }
rules:
  - id: small-refunds
    action: refund.create
    when: args.cents <= 1000
    effect: allow
  - id: too-large
    action: refund.create
    when: args.cents > 900000
    effect: block
    reason: too large for a workflow refund
  - id: finance-refunds
    action: refund.*
    roles: [finance]
    min_approvals: 2
`;

/** The patch of workflow gates judged by the rule file (src/workflow/open-gate.ts). */
const JUDGED = { parent: ['workflow-gate-judged'] };
/** ... and of a gate decided at creation (src/workflow/gate/policy-at-creation.ts). */
const DECIDED = { ...JUDGED, gate: ['policy-at-creation'] };

export const JUDGED_WORKFLOW_PATHS: Record<string, WorkflowPath> = {
  /** `allow`: the gate starts approved by `policy:small-refunds`, and the refund runs. */
  'require-approval-allow': {
    type: 'refundWorkflow',
    args: { order_id: 'R3', cents: 500, tenant: 'acme' },
    expect: 'approved',
    decidedBy: 'policy:small-refunds',
    patches: DECIDED,
  },
  /** `block`: the gate starts denied by `policy:too-large`; the workflow gets `denied` and refunds nothing. */
  'require-approval-block': {
    type: 'refundWorkflow',
    args: { order_id: 'R4', cents: 1000000, tenant: 'acme' },
    expect: 'denied',
    decidedBy: 'policy:too-large',
    patches: DECIDED,
  },
  /** `require` by finance-refunds: an ineligible vote, two finance approvals, then the refund. */
  'require-approval-require': {
    type: 'refundWorkflow',
    args: { order_id: 'R5', cents: 5000, tenant: 'acme' },
    expect: 'approved',
    patches: JUDGED,
  },
  /** withApproval, `allow`: approved at creation, the gate re-checks (refundStillValid), then the activity runs. */
  'with-approval-allow': {
    type: 'gatedRefundWorkflow',
    args: { order_id: 'R6', cents: 500 },
    tenant: 'acme',
    expect: 'executed',
    decidedBy: 'policy:small-refunds',
    patches: DECIDED,
  },
  /** withApproval, `block`: denied at creation; the activity never runs. */
  'with-approval-block': {
    type: 'gatedRefundWorkflow',
    args: { order_id: 'R7', cents: 1000000 },
    tenant: 'acme',
    expect: 'denied',
    decidedBy: 'policy:too-large',
    patches: DECIDED,
  },
  /** withApproval, `require`: two finance approvals, the re-check, then the activity. */
  'with-approval-require': {
    type: 'gatedRefundWorkflow',
    args: { order_id: 'R8', cents: 5000 },
    tenant: 'acme',
    expect: 'executed',
    patches: JUDGED,
  },
};
