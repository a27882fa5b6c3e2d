import { z } from 'zod';
import { sharedSchema } from './shared-schema';
import { Interaction } from './interaction';
import { canonicalJson, digest, utf8Length } from './hashing';
import { findSecrets } from './secrets';
import { ReviewerRequirement, RoleName } from '../policy/reviewer-policy';
import { EvidenceEscalation, PolicyEvidence } from '../policy/policy-evidence';
import { EscalationChain, NotifyTarget } from '../policy/policy-v2';

/** Largest evidence payload, as canonical JSON bytes. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** Longest summary a dashboard shows. */
export const MAX_SUMMARY_CHARS = 120;

/** C0/C1 controls and bidi overrides: they can rewrite what a reviewer's terminal or page shows. */
const DISPLAY_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const displayText = (max: number, what: string) =>
  z
    .string()
    .min(1)
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !DISPLAY_UNSAFE.test(v), `${what} must not contain control characters or bidi overrides`);

const Hex64 = sharedSchema('evidence.Hex64', () =>
  z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex characters (SHA-256)'),
);
const Id = sharedSchema('evidence.Id', () => z.string().min(1).max(200));
const JsonObject = sharedSchema('evidence.JsonObject', () => z.record(z.string(), z.unknown()));

/** What exactly was approved: bound to the tool, its args and the validated result it acts on. */
export const Snapshot = sharedSchema('evidence.Snapshot', () =>
  z.object({
    /** Registered tool name the approval is for. */
    tool: z.string().min(1).max(100),
    /** SHA-256 of the canonical JSON of `args`. */
    args_sha256: Hex64,
    /** Version of the domain result the args were assembled from (a draft version). */
    result_version: z.union([z.int().nonnegative(), z.string().min(1).max(100)]),
    /** SHA-256 of that result's content. */
    result_sha256: Hex64,
    /** SHA-256 of the validation result that cleared it. */
    validation_sha256: Hex64,
  }),
);
export type Snapshot = z.infer<typeof Snapshot>;

/** The namespaced verb: `trip.submit`, `stripe.refund.create`. */
export const Action = sharedSchema('evidence.Action', () =>
  z
    .string()
    .max(100)
    .regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/, 'must be a namespaced verb such as "refund.create"'),
);

/** Concrete impact: integer amounts (cents, rows, scopes), or short unit labels such as a currency. */
export const BlastRadius = sharedSchema('evidence.BlastRadius', () =>
  z.record(z.string().min(1).max(64), z.union([z.int(), z.string().max(64)])),
);

/** Fields the requesting agent knows; the server adds ids, hashes and the deadline. */
export const EvidenceFields = sharedSchema('evidence.EvidenceFields', () =>
  z.object({
    /** Trace id linking the request, the audit trail and webhooks. */
    correlation_id: Id,
    /** The requesting agent; over HTTP it must equal the caller's key id. */
    agent_id: Id,
    /** The inbound event or message that caused this action. */
    trigger_event_id: Id,
    /** Namespaced verb. */
    action: Action,
    /** Canonical id of the resource being changed. */
    target: displayText(500, 'target'),
    /** One line for fast scanning. */
    summary: displayText(MAX_SUMMARY_CHARS, 'summary'),
    /** Concrete impact. */
    blast_radius: BlastRadius.default({}),
    /** The exact tool input. */
    args: JsonObject,
    /** Conditions the executor re-checks before acting. */
    preconditions: JsonObject.default({}),
    /** For the `tool` executor: what the approval binds to. */
    snapshot: Snapshot.optional(),
    /** A structured question for the reviewer, when the request is one. */
    interaction: Interaction.optional(),
  }),
);

/** The immutable evidence payload a reviewer decides on. `payload_sha256` is the digest of its canonical JSON. */
export const EvidencePayload = sharedSchema('evidence.EvidencePayload', () =>
  EvidenceFields.extend({
    /** The gate's id; also its workflow id. */
    request_id: Id,
    /** Deduplicates creation; default hash of trigger_event_id + action + target. */
    idempotency_key: z.string().min(1).max(256),
    /** When the request expires, failing closed (ISO 8601 UTC). */
    expires_at: z.iso.datetime(),
    /** Who may decide: the rule file's rule (and its hash) tightened by the request. Absent: any reviewer. */
    reviewer_policy: ReviewerRequirement.optional(),
    /** What a version 2 rule file decided and why: the rule, its effect, the values it read and the file's hash. */
    policy: PolicyEvidence.optional(),
    /**
     * The escalation chain the gate runs (the create body's, else its rule's), copied at
     * creation so a later rule file leaves a pending gate alone. Absent: no chain.
     */
    escalation: EvidenceEscalation.optional(),
    /** Targets told at creation (level 0): the request's own, else its rule's, else GATE_NOTIFY. Absent: none. */
    notify: z.array(z.string().max(320)).max(20).optional(),
  }),
);
export type EvidencePayload = z.infer<typeof EvidencePayload>;

/**
 * Which side runs the approved action: `external` consumes once over the API, `tool` is
 * run by the gate itself, `workflow` is the parent workflow that opened the gate with
 * `requireApproval` (the approval is consumed by being returned to it).
 */
export const Executor = sharedSchema('evidence.Executor', () => z.enum(['external', 'tool', 'workflow']));
export type Executor = z.infer<typeof Executor>;

/** Body of `POST /v1/approvals`. */
export const CreateApprovalBody = sharedSchema('evidence.CreateApprovalBody', () =>
  EvidenceFields.extend({
    agent_id: Id.optional(),
    /** Time to live; default 3600 seconds. Give this or `expires_at`. */
    ttl_seconds: z
      .int()
      .min(1)
      .max(30 * 24 * 3600)
      .optional(),
    expires_at: z.iso.datetime().optional(),
    /** Distinct reviewers needed (N of M); the server's rule for the action may raise it. */
    approvals_required: z.int().min(1).max(10).default(1),
    /** Roles that may decide (one suffices); may only narrow the roles the server's rule allows. */
    reviewer_roles: z.array(RoleName).min(1).max(50).optional(),
    /** `external` (default over HTTP): the agent consumes once; `tool`: the gate runs a registered tool. */
    executor: Executor.default('external'),
    /** Seconds an approved external request waits for its consume before it expires. */
    consume_ttl_seconds: z
      .int()
      .min(1)
      .max(30 * 24 * 3600)
      .default(3600),
    /** Seconds before expiry at which an `approval.escalated` notice goes out. */
    escalate_before_seconds: z.int().min(1).optional(),
    /** An escalation chain for this request (it takes the place of the rule's): levels with `after`, `notify`, `roles`, and `repeat`. */
    escalation: EscalationChain.optional(),
    /** Targets told at creation (`slack:#channel`, `email:address`, `teams:<name>`); `[]`: nobody. Default the rule's, else GATE_NOTIFY. */
    notify: z.array(NotifyTarget).max(20).optional(),
  }).strict(),
);
export type CreateApprovalBody = z.infer<typeof CreateApprovalBody>;

/** Default idempotency key: hash(trigger_event_id + action + target), as the seed asks. */
export function defaultIdempotencyKey(fields: { trigger_event_id: string; action: string; target: string }): string {
  return digest([fields.trigger_event_id, fields.action, fields.target]);
}

/**
 * Deterministic request id for an agent's idempotency key: one key, one workflow id.
 * Scoped by agent, so one agent can neither squat nor probe another's keys.
 */
export function requestIdFor(agentId: string, idempotencyKey: string): string {
  return `appr_${digest(['approval-gate/request', agentId, idempotencyKey]).slice(0, 24)}`;
}

/** A problem with a payload that is not a schema error: too big, or carrying secrets. */
export interface PayloadProblem {
  code: 'payload_too_large' | 'secret_in_payload';
  message: string;
  paths?: string[];
}

/** Size and secret checks on a complete payload; null when it may be stored. */
export function checkPayload(payload: EvidencePayload): PayloadProblem | null {
  const bytes = utf8Length(canonicalJson(payload));
  if (bytes > MAX_PAYLOAD_BYTES) {
    return {
      code: 'payload_too_large',
      message: `evidence payload is ${bytes} bytes; the limit is ${MAX_PAYLOAD_BYTES}`,
    };
  }
  const secrets = findSecrets(payload);
  if (secrets.length > 0) {
    return {
      code: 'secret_in_payload',
      message: `evidence payload carries secrets at ${secrets.join(', ')}; remove them`,
      paths: secrets,
    };
  }
  return null;
}

/** The digest a decision must name. */
export function payloadSha256(payload: EvidencePayload): string {
  return digest(payload);
}
