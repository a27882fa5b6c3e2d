import type { Duration } from '@temporalio/common';
import type { Snapshot } from '../common/evidence';
import type { Interaction } from '../common/interaction';

/**
 * What a workflow asks a person to approve: the evidence payload of docs/concepts.md that the
 * caller knows (the gate adds the ids, hashes and deadline), plus how long it may wait.
 */
export interface ApprovalRequest {
  /** Namespaced verb, e.g. `refund.create`. */
  action: string;
  /** Canonical id of the resource being changed, e.g. `order/1234`. */
  target: string;
  /** One line for the reviewer (at most 120 characters). */
  summary: string;
  /** Concrete impact: integer amounts (cents, rows) or short unit labels. */
  blast_radius?: Record<string, number | string>;
  /** The exact input of the action; a reviewer may modify it, and the approved args are returned. */
  args: Record<string, unknown>;
  /** Conditions the executor re-checks before acting. */
  preconditions?: Record<string, unknown>;
  /** What the approval binds to, when the args were assembled from a versioned result. */
  snapshot?: Snapshot;
  /** A structured question for the reviewer. */
  interaction?: Interaction;
  /** Trace id; default the calling workflow's id. */
  correlation_id?: string;
  /** How long the request waits for a decision before it expires (fails closed): `'2h'`, `'30m'` or ms. */
  ttl: Duration;
  /** Distinct reviewers needed (1 to 10, default 1); the worker's rule file (GATE_POLICY_FILE) may raise it. */
  approvals_required?: number;
  /**
   * Roles that may decide (one suffices). They may only narrow the roles the worker's rule
   * file gives the action; a role outside them fails the call (InvalidInput) before the gate opens.
   */
  reviewer_roles?: string[];
  /** Send an `approval.escalated` notice this long before expiry. */
  escalate_before?: Duration;
  /**
   * An escalation chain for this request, in place of its rule's (docs/notifications.md):
   * each level `after` this long from creation (before the `ttl`, or the call fails with
   * InvalidInput) tells its `notify` targets and lets its `roles` decide too; `repeat`
   * runs the levels again after the last.
   */
  escalation?: { levels: { after: Duration; notify?: string[]; roles?: string[] }[]; repeat?: number };
  /** Targets told when the gate opens (`slack:#channel`, `email:address`, `teams:<name>`); default its rule's. */
  notify?: string[];
}

/** How the gate is opened. */
export interface RequireApprovalOptions {
  /** Task queue of the worker that hosts the gate; default the calling workflow's own task queue. */
  taskQueue?: string;
  /**
   * The request id (also the gate's workflow id and its idempotency key). Default:
   * `<workflow id>-approval-<n>` for the n-th call in the run (a later run of the same
   * workflow id, retried or continued-as-new, adds its run id's first 8 characters), so
   * replay yields the same id and a retried run opens a new request instead of reusing one.
   */
  requestId?: string;
  /** Who asks (the reviewers see it; it cannot approve its own request). Default the calling workflow's type. */
  agentId?: string;
  /**
   * The tenant whose reviewers see and decide the request (its `GateTenant`). Default the
   * calling workflow's own `GateTenant` (a gate opened from an agent run's tenant, or any
   * workflow started with the attribute), else the default tenant. Another tenant's keys
   * get 404 for it, as for any request of another tenant.
   */
  tenant?: string;
}

/** A person approved: the args to act on (a reviewer's modification when `modified`). Returned once per request. */
export interface ApprovedOutcome {
  status: 'approved';
  request_id: string;
  args: Record<string, unknown>;
  args_sha256: string;
  payload_sha256: string;
  /** The reviewer whose decision settled the request. */
  decided_by: string;
  /** Every reviewer who approved (N of M). */
  approvers: string[];
  modified: boolean;
}
export interface DeniedOutcome {
  status: 'denied';
  request_id: string;
  reason: string;
  decided_by: string;
}
export interface ExpiredOutcome {
  status: 'expired';
  request_id: string;
}
export interface CancelledOutcome {
  status: 'cancelled';
  request_id: string;
  reason?: string;
}

/** What `requireApproval` resolves with: a union on `status`. */
export type ApprovalOutcome = ApprovedOutcome | DeniedOutcome | ExpiredOutcome | CancelledOutcome;
