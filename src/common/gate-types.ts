import type { AuditEvent, AuditEventType, ActorType } from './audit';
import type { DecisionResult, DecisionWord, ReviewerAuth } from './decision';
import type { EvidencePayload, Executor, Snapshot } from './evidence';
import type { ApprovalStatus } from './lifecycle';
import type { PolicyDecision, ShadowResult } from '../policy/policy-evidence';
import type { DeliverNoticeInput, NoticeChannel, NoticeThread } from './notice';
import type { IssuedGrant, VoteGrant } from './grant';

export type { IssuedGrant, VoteGrant } from './grant';

// The gate's data: what the workflow is started with, holds, and returns.

/** Input of the approvalGate workflow. */
export interface GateInput {
  payload: EvidencePayload;
  payload_sha256: string;
  approvals_required: number;
  executor: Executor;
  consume_ttl_seconds: number;
  escalate_before_seconds?: number;
  /** Digest of what the creator sent, so a replay with other content is told apart. */
  create_sha256: string;
  /** For the `tool` executor: the domain and session whose tool the gate runs. */
  tool?: { domain: string; session_id: string };
  /** Set when an agent run owns this gate. */
  run_id?: string;
  /** The tool call the gate stands for, within its run. */
  call_id?: string;
  /** For the `workflow` executor: the workflow that opened the gate and receives the approval. */
  parent?: {
    workflow_id: string;
    /** The caller's activity run right before the hand-over (mismatch: `invalidated`), on the caller's task queue. */
    recheck?: { activity: string; task_queue: string };
  };
  /**
   * Set when the creator writes the `approval.requested` event to the audit store itself
   * (right after the start): the gate builds the same event from these ids and schedules
   * no store write for it; its next batch sends it again (the insert is idempotent), so a
   * creator that crashed before writing loses nothing. `recorded`: the creator recorded
   * an audit intent holding the event before the start (see `CallerWrites.recorded`), so
   * the gate does not send it again.
   */
  requested_event?: { event_id: string; timestamp: string; recorded?: true };
  /**
   * History events one execution may reach before the gate continues as new (default
   * 10,000; Temporal's own suggestion to continue also counts), so a flood of messages
   * cannot grow a gate's history without bound.
   */
  max_history_events?: number;
  /** Set by the gate itself when it continues as new: what the previous execution held. */
  continued?: GateCarry;
  /**
   * Decided at creation by the rule file (allow, block) or a standing grant: the gate
   * starts `approved` or `denied`, decided by `policy:<rule id>` or `grant:<grant id>`.
   */
  policy_decision?: PolicyDecision;
  /** What the file's warn and audit rules would have done: each a `policy.shadow` event in the trail. */
  policy_shadow?: ShadowResult[];
}

/** A webhook a gate still has to deliver (the body of a `deliverWebhooks` call). */
export interface WebhookMessage {
  message_id: string;
  event_type: string;
  body: Record<string, unknown>;
}

/**
 * What a gate hands to its next execution: the state, the whole audit chain, the refusal
 * count, and what its trail had not finished (store writes not yet acknowledged, webhooks
 * not yet delivered), which the next execution sends again (inserts and receivers are
 * idempotent by id). Nothing waits for a round trip, so a handover cannot be outrun by a flood.
 */
export interface GateCarry {
  state: GateState;
  events: AuditEvent[];
  refusals_recorded: number;
  unwritten: { event: AuditEvent; webhook?: WebhookMessage }[];
  deliveries: WebhookMessage[];
  /** Executions so far, this one included (1 for the first). */
  executions: number;
  /** Notices still being delivered when the execution handed over: the next one delivers them again (at least once). */
  notices?: DeliverNoticeInput[];
}

/** A message a gate sent (`deliverNotice`), kept so its ended notice can edit or thread it. */
export interface NoticeReceipt {
  target: string;
  channel: NoticeChannel;
  /** The level it was sent for (0: creation) and the chain's loop. */
  level: number;
  loop: number;
  thread?: NoticeThread;
}

/** How far a gate's escalation chain has run. */
export interface EscalationProgress {
  /** Entries of the level schedule (src/common/escalation.ts) already fired or passed. */
  fired: number;
  /** The last level fired (1-based) and its loop; absent before the first. */
  level?: number;
  loop?: number;
}

/** One reviewer's approval (approve or modify) counted toward the quorum. */
export interface Vote {
  reviewer_id: string;
  decision_id: string;
  decision: 'approve' | 'modify';
  note?: string;
  at: string;
  /** The standing grant this vote asks for (every approving vote must name the same one). */
  grant?: VoteGrant;
  /** How the reviewer authenticated, when the API recorded it. */
  auth?: ReviewerAuth;
  /** The reviewer's roles when they voted, recorded with `auth`. */
  roles?: string[];
}

/** What the executing tool reported: an execution result, never a policy block. */
export interface ToolExecution {
  outcome: 'success' | 'failure';
  content: string;
  values?: Record<string, unknown>;
  error?: string;
  at: string;
}

/** The result of a reviewer's modification after schema, domain validation and policy. */
export interface Modification {
  args: Record<string, unknown>;
  snapshot?: Snapshot;
  /** Approvals the modified call's policy tier needs. */
  approvals_required?: number;
  /** Human-readable executed values, e.g. { budget: 500000 }. */
  executed_values?: Record<string, unknown>;
  /** Model-facing args of the revised call, for the run's recorded assistant message. */
  call_args?: Record<string, unknown>;
}

/** The whole state of one gate: what the query returns and the API shows. */
export interface GateState {
  request_id: string;
  status: ApprovalStatus;
  payload: EvidencePayload;
  payload_sha256: string;
  executor: Executor;
  approvals_required: number;
  votes: Vote[];
  /** The decision that settled the request. */
  decision?: {
    decision: DecisionWord;
    reviewer_id: string;
    reason?: string;
    note?: string;
    at: string;
    /** How the deciding reviewer authenticated, when the API recorded it. */
    auth?: ReviewerAuth;
  };
  /** Args that will run: the requested ones, or a reviewer's modification. */
  final_args: Record<string, unknown>;
  final_args_sha256: string;
  final_snapshot?: Snapshot;
  executed_values?: Record<string, unknown>;
  modified_by?: string;
  created_at: string;
  expires_at: string;
  consume_deadline?: string;
  consumed_at?: string;
  consumed_by?: string;
  /** Why the request is in its current terminal state. */
  status_reason?: string;
  execution?: ToolExecution;
  run_id?: string;
  call_id?: string;
  /** Results by decision key (reviewer and decision id): a decision delivered twice is applied once. */
  decisions: Record<string, DecisionResult>;
  /** Digest of each applied decision's content, by decision key: a reused id with other content is refused. */
  decision_digests: Record<string, string>;
  /** True while a modification is being validated; other decisions wait. */
  busy: boolean;
  /** Key of the decision being applied while busy; its duplicates wait for its result. */
  busy_key?: string;
  /** Refusals past the audit cap (a flood of bad messages): counted here, not recorded one by one. */
  refusals_unrecorded?: number;
  /** Executions of the gate workflow so far, when it has continued as new (absent: one). */
  executions?: number;
  /** The standing grant the approval gave, when every approving vote named it. */
  grant?: IssuedGrant;
  /** Gates with an escalation chain: how far it has run. */
  escalation?: EscalationProgress;
  /** Roles the chain's levels added to those that may decide (from the level on). */
  roles_added?: string[];
  /** Messages sent to notification targets, for the ended notices. */
  notices?: NoticeReceipt[];
  updated_at: string;
}

/** An audit event to append, before the chain fields are filled. */
export interface AuditSpec {
  event_type: AuditEventType;
  actor_type: ActorType;
  actor_id: string;
  note?: string;
  data?: Record<string, unknown>;
}
