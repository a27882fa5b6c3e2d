import type { PolicyRequest } from '../../policy/judge';
import type { AuditEvent } from '../../common/audit';
import type { Snapshot } from '../../common/evidence';
import type { RecordedReview } from '../../policy/reviewer-policy';
import type { PolicyDecision, PolicyEvidence, ShadowResult } from '../../policy/policy-evidence';
import type { RecheckResult, RevisionResult, ToolOutput } from '../../domain/types';
import type { DeliverNoticeInput, DeliverNoticeResult } from '../../common/notice';
import type { IssuedGrant } from '../../common/grant';

/** Which domain session a tool call belongs to. */
export interface DomainRef {
  domain: string;
  session_id: string;
}

export interface DeliverWebhooksInput {
  /** Stable across retries: receivers deduplicate on it (`webhook-id`). */
  message_id: string;
  event_type: string;
  /** The JSON body: `{ type, timestamp, data }`. */
  body: Record<string, unknown>;
}
export interface DeliverWebhooksResult {
  delivered: string[];
}

export interface RecordAuditEventsInput {
  /** Events in chain order; ids already stored are skipped (retries are safe). */
  events: AuditEvent[];
}
export interface RecordAuditEventsResult {
  /** How many webhook receivers are configured: 0 means the gate schedules no deliveries. */
  webhook_receivers: number;
}

export interface RecheckSnapshotInput extends DomainRef {
  tool: string;
  input: Record<string, unknown>;
  snapshot: Snapshot;
}
export interface ExecuteToolInput extends DomainRef {
  tool: string;
  input: Record<string, unknown>;
  idempotency_key: string;
}
/** The tool run with its re-check inside the same attempt (`recheckAndExecuteTool`). */
export interface RecheckAndExecuteInput extends ExecuteToolInput {
  snapshot: Snapshot;
}
/**
 * What `recheckAndExecuteTool` did: ran the tool after the re-check passed (or found the
 * key already run: a retry after the effect), or refused because the re-check failed.
 * `unsupported`: the domain cannot tell whether a key already ran, so nothing was done
 * and the gate re-checks and runs the tool in two steps.
 */
export type RecheckAndExecuteResult =
  | { ran: true; output: ToolOutput }
  | { ran: false; recheck: Extract<RecheckResult, { ok: false }> }
  | { unsupported: true };
export interface ReviseToolCallInput extends DomainRef {
  tool: string;
  input: Record<string, unknown>;
  patch: Record<string, unknown>;
}

/** What a gate's creator asks of the worker's rule file: the action, and what the request itself asks for. */
export interface ResolveReviewersInput {
  action: string;
  /** The approvals the request (or the domain's policy) asks for; the rule may raise them. */
  approvals_required: number;
  /** Roles the request names; they may only narrow the rule's. */
  reviewer_roles?: string[];
}
/** Who may decide the new gate, or why the request may not be opened (it would widen the rule's roles). */
export type ResolveReviewersResult = RecordedReview | { problem: string };

/** A request a workflow is about to gate, as the rule file judges it (src/worker/activities/policy.ts). */
export interface EvaluatePolicyInput extends PolicyRequest {
  /** The gate's request id: grants are used once per request, and the judgement is recorded under it. */
  request_id: string;
  /** An agent run's call: the domain adapter's tier, combined with the file's (the stricter wins). */
  domain?: { tier: 'allow' | 'require' | 'block'; approvals_required?: number; reason?: string };
  via: 'workflow' | 'run';
}

/** The rule file's answer for a workflow's gate: what decides, who reviews, and what is bound into the evidence. */
export interface EvaluatePolicyResult {
  effect: 'allow' | 'require' | 'block';
  rule_id: string | null;
  decided_by: string;
  reason?: string;
  review: RecordedReview | { problem: string };
  /** The evidence's `policy` field (version 2 files). */
  evidence?: PolicyEvidence;
  shadow: ShadowResult[];
  ttl_seconds?: number;
  /** Set when the gate is decided at creation: by the rule (allow, block) or by a standing grant. */
  decision?: PolicyDecision;
  /** The worker's GATE_NOTIFY: told at creation when neither the request nor its rule names targets. */
  default_notify?: string[];
  version: 1 | 2 | null;
}

/** A standing grant a gate's quorum gave, and the tenant whose later creates it may answer. */
export interface IssueGrantInput {
  grant: IssuedGrant;
  tenant: string;
}
/** `stored: false` when the worker has no grant store (a worker built without one). */
export interface IssueGrantResult {
  stored: boolean;
}

/**
 * Activities the approvalGate workflow schedules. Implemented by `createGateActivities`.
 * `executeTool` throws a non-retryable ApplicationFailure of type ToolFailed when the
 * tool raised; anything else it throws is retried.
 */
export interface GateActivities {
  /** A batch of events in one insert: what one workflow task appended to the trail. */
  recordAuditEvents(input: RecordAuditEventsInput): Promise<RecordAuditEventsResult>;
  deliverWebhooks(input: DeliverWebhooksInput): Promise<DeliverWebhooksResult>;
  /**
   * One notice to one target (Slack, email, Teams; docs/notifications.md). Throws a retryable
   * NotificationDeliveryFailed when the channel refuses or is unreachable, a non-retryable
   * NotificationMisconfigured when the target's channel is not configured on the worker.
   */
  deliverNotice(input: DeliverNoticeInput): Promise<DeliverNoticeResult>;
  recheckSnapshot(input: RecheckSnapshotInput): Promise<RecheckResult>;
  executeTool(input: ExecuteToolInput): Promise<ToolOutput>;
  /**
   * The snapshot re-check and the tool in one activity, the re-check right before the
   * effect in the same attempt. A retry whose key already ran skips the re-check (the
   * effect it would see as drift is its own) and returns the stored output.
   */
  recheckAndExecuteTool(input: RecheckAndExecuteInput): Promise<RecheckAndExecuteResult>;
  reviseToolCall(input: ReviseToolCallInput): Promise<RevisionResult>;
  /**
   * Applies the worker's rule file (GATE_POLICY_FILE, loaded at start) to a gate about to
   * be opened by a workflow (an agent run's tool call, `requireApproval`), on the gate's
   * task queue, so the answer is recorded in the creator's history and replays unchanged.
   */
  resolveReviewers(input: ResolveReviewersInput): Promise<ResolveReviewersResult>;
  /**
   * Judges a gate a workflow is about to open by the worker's rule file (both versions):
   * the one evaluation of src/policy/judge.ts, recorded in the creator's history.
   */
  evaluatePolicy(input: EvaluatePolicyInput): Promise<EvaluatePolicyResult>;
  /**
   * Stores the standing grant a quorum gave and opens its chain with `grant.issued`, once
   * per grant id however often it runs. The gate stores every grant it gives, so one given
   * by a decision that came by signal (a `202 decision_accepted`, or another service's
   * signal) is stored too, not only one the API saw applied.
   */
  issueGrant(input: IssueGrantInput): Promise<IssueGrantResult>;
}
