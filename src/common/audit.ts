import { z } from 'zod';
import { sharedSchema } from './shared-schema';
import { digest } from './hashing';

/** Every audit event type. Lifecycle ones are also sent as webhooks. */
export const AuditEventType = {
  Requested: 'approval.requested',
  VoteRecorded: 'approval.vote_recorded',
  Modified: 'approval.modified',
  Approved: 'approval.approved',
  Denied: 'approval.denied',
  Expired: 'approval.expired',
  Escalated: 'approval.escalated',
  /** A notice to a reviewer channel (Slack, email, Teams) that failed after its retries. */
  NotificationFailed: 'notification.failed',
  Consumed: 'approval.consumed',
  Cancelled: 'approval.cancelled',
  Invalidated: 'approval.invalidated',
  DecisionRefused: 'decision.refused',
  SnapshotVerified: 'snapshot.verified',
  ToolSucceeded: 'tool.succeeded',
  ToolFailed: 'tool.failed',
  RunStarted: 'run.started',
  PolicyBlocked: 'policy.blocked',
  ToolResult: 'tool.result',
  RunCompleted: 'run.completed',
  RunFailed: 'run.failed',
  RunCancelled: 'run.cancelled',
  /** The run continued as a new workflow execution; the chain goes on there. */
  RunContinued: 'run.continued',
  SignalRefused: 'signal.refused',
  /** API key lifecycle, each in the key's own chain (`key:<kind>:<id>`). */
  KeyCreated: 'key.created',
  KeyRotated: 'key.rotated',
  KeyRevoked: 'key.revoked',
  KeyRolesChanged: 'key.roles_changed',
  /** A rule file's judgement of a request, in its own chain (`policy:<request id>`): what `gate policy replay` re-judges. */
  PolicyEvaluated: 'policy.evaluated',
  /** What a warn or audit rule would have done; never enforced. */
  PolicyShadow: 'policy.shadow',
  /** A tool call a rule allowed without a gate (in the run's trail). */
  PolicyAllowed: 'policy.allowed',
  /** Standing grants, each in the grant's own chain (`grant:<id>`); a use is also on the gate it approved. */
  GrantIssued: 'grant.issued',
  GrantUsed: 'grant.used',
  GrantRevoked: 'grant.revoked',
} as const;
export type AuditEventType = (typeof AuditEventType)[keyof typeof AuditEventType];

/** Event types POSTed to webhook receivers. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = [
  AuditEventType.Requested,
  AuditEventType.Approved,
  AuditEventType.Denied,
  AuditEventType.Expired,
  AuditEventType.Consumed,
  AuditEventType.Cancelled,
  AuditEventType.Invalidated,
  AuditEventType.Escalated,
];

export const ActorType = sharedSchema('audit.ActorType', () => z.enum(['agent', 'human', 'system']));
export type ActorType = z.infer<typeof ActorType>;

/** One link of a request's tamper-evident trail. `hash` covers every other field, `prev_hash` the link before. */
export const AuditEvent = sharedSchema('audit.AuditEvent', () =>
  z.object({
    /** Unique id, also the webhook delivery id's root. */
    event_id: z.string(),
    /** 0-based position in the request's chain. */
    seq: z.int().nonnegative(),
    /** The request (or run) this event belongs to. */
    request_id: z.string(),
    event_type: z.string(),
    actor_type: ActorType,
    /** Key id of an agent or reviewer, or `approval-gate` for the system. */
    actor_id: z.string(),
    /** Digest of the evidence payload the event concerns. */
    payload_sha256: z.string().nullable(),
    /** Reviewer's note or reason, or the system's explanation. */
    note: z.string().nullable(),
    /** ISO 8601 UTC. */
    timestamp: z.string(),
    /** Extra facts: votes, executed args digest, tool outcome. */
    data: z.record(z.string(), z.unknown()),
    /** `hash` of the previous event, null for the first. */
    prev_hash: z.string().nullable(),
    /** SHA-256 of this event's canonical JSON without `hash`. */
    hash: z.string(),
  }),
);
export type AuditEvent = z.infer<typeof AuditEvent>;

/** The fields a caller supplies; the chain fills seq, prev_hash and hash. */
export type AuditEventFields = Omit<AuditEvent, 'seq' | 'prev_hash' | 'hash'>;

/** Appends `fields` after `prev`, hashing the link. Pure and deterministic. */
export function chainEvent(prev: AuditEvent | undefined, fields: AuditEventFields): AuditEvent {
  const { hash: _stray, ...clean } = fields as AuditEventFields & { hash?: unknown };
  const unhashed = { ...clean, seq: prev ? prev.seq + 1 : 0, prev_hash: prev ? prev.hash : null };
  return { ...unhashed, hash: digest(unhashed) };
}

/** Proves a trail untampered: every hash recomputes and every link points at the one before. */
export function verifyChain(
  events: readonly AuditEvent[],
): { ok: true; count: number } | { ok: false; index: number; reason: string } {
  let prev: AuditEvent | undefined;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const { hash, ...rest } = e;
    if (e.seq !== i) return { ok: false, index: i, reason: `event ${e.event_id} has seq ${e.seq}, expected ${i}` };
    if (e.prev_hash !== (prev ? prev.hash : null))
      return { ok: false, index: i, reason: `event ${e.event_id} does not point at the event before it` };
    if (digest(rest) !== hash)
      return { ok: false, index: i, reason: `event ${e.event_id} was altered: its hash does not match its content` };
    prev = e;
  }
  return { ok: true, count: events.length };
}
