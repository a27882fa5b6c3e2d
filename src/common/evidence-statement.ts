import { z } from 'zod';
import type { AuditEvent } from './audit';
import { bytesToUtf8, utf8ToBytes } from '@noble/hashes/utils';
import { base64Decode, base64Encode, IN_TOTO_PAYLOAD_TYPE, pae, type DsseEnvelope } from './dsse';
import { evidenceFacts, type EvidenceFacts, type FactProblem } from './evidence-facts';
import { digest } from './hashing';
import { sharedSchema } from './shared-schema';

// The in-toto Statement v1 an evidence bundle signs, and its approval predicate.

export const IN_TOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const APPROVAL_PREDICATE_TYPE = 'https://approval-gate.dev/approval/v1';
/** Suffix of the second subject's name: the executed args of `<request_id>`. */
export const ARGS_SUBJECT_SUFFIX = '/args';

const Obj = () => z.record(z.string(), z.unknown());
const Hex64 = () => z.string().regex(/^[0-9a-f]{64}$/);

/**
 * The predicate's shape. Checked, never used to rewrite: digests are taken of the
 * decoded JSON as it came, so a field this schema does not know still counts.
 */
export const ApprovalPredicate = sharedSchema('evidence-statement.ApprovalPredicate', () =>
  z.object({
    request_id: z.string().min(1),
    /** True while the request is not in a terminal state: the bundle is a snapshot, not an outcome. */
    pending: z.boolean(),
    /** The immutable evidence payload; `payload_sha256` is the SHA-256 of its RFC 8785 JSON. */
    payload: Obj(),
    payload_sha256: Hex64(),
    /** `external`, `tool` or `workflow` (from `approval.requested`). */
    executor: z.string().nullable(),
    /** The args that run (or ran): the payload's, or a reviewer's modification. */
    final_args: Obj(),
    final_args_sha256: Hex64(),
    policy: Obj().nullable(),
    decisions: z.array(Obj()),
    quorum: Obj(),
    escalations: z.array(Obj()),
    outcome: Obj().and(z.object({ status: z.string(), pending: z.boolean() })),
    /** The request's audit events in chain order, each with `prev_hash` and `hash`. */
    audit: z.object({ count: z.int().nonnegative(), head_hash: z.string().nullable(), events: z.array(Obj()) }),
    exported_at: z.string(),
    exporter: z.object({ name: z.string(), version: z.string() }),
  }),
);

export const ApprovalStatement = sharedSchema('evidence-statement.ApprovalStatement', () =>
  z.object({
    _type: z.literal(IN_TOTO_STATEMENT_TYPE),
    subject: z.array(z.object({ name: z.string(), digest: z.object({ sha256: Hex64() }) })).length(2),
    predicateType: z.literal(APPROVAL_PREDICATE_TYPE),
    predicate: ApprovalPredicate,
  }),
);

/** The predicate as the exporter writes it. */
export interface ApprovalPredicate extends EvidenceFacts {
  request_id: string;
  pending: boolean;
  payload: Record<string, unknown>;
  payload_sha256: string;
  audit: { count: number; head_hash: string | null; events: AuditEvent[] };
  exported_at: string;
  exporter: { name: string; version: string };
}

/** An in-toto Statement v1 about one approval. */
export interface ApprovalStatement {
  _type: typeof IN_TOTO_STATEMENT_TYPE;
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: typeof APPROVAL_PREDICATE_TYPE;
  predicate: ApprovalPredicate;
}

/**
 * The statement for a request: its payload (from the gate) and its audit events (the
 * gate's chain, checked against the append-only store), plus the facts they establish.
 * Returns the problems the events show too, which the exporter may refuse to sign.
 */
export function approvalStatement(input: {
  payload: Record<string, unknown>;
  events: AuditEvent[];
  exported_at: string;
  exporter: { name: string; version: string };
}): { statement: ApprovalStatement; problems: FactProblem[] } {
  const { facts, problems } = evidenceFacts(input.payload, input.events);
  const requestId = String(input.payload.request_id);
  const payloadSha = digest(input.payload);
  const last = input.events[input.events.length - 1];
  return {
    statement: {
      _type: IN_TOTO_STATEMENT_TYPE,
      subject: [
        { name: requestId, digest: { sha256: payloadSha } },
        { name: `${requestId}${ARGS_SUBJECT_SUFFIX}`, digest: { sha256: facts.final_args_sha256 } },
      ],
      predicateType: APPROVAL_PREDICATE_TYPE,
      predicate: {
        request_id: requestId,
        pending: facts.outcome.pending,
        payload: input.payload,
        payload_sha256: payloadSha,
        ...facts,
        audit: { count: input.events.length, head_hash: last?.hash ?? null, events: input.events },
        exported_at: input.exported_at,
        exporter: input.exporter,
      },
    },
    problems,
  };
}

/** Signs with one key: `sign` returns the Ed25519 signature of the bytes it is given. */
export interface EnvelopeSigner {
  keyid: string;
  sign(message: Uint8Array): Uint8Array;
}

/** Wraps a statement in a DSSE envelope signed over PAE(payloadType, payload). */
export function signedEnvelope(statement: unknown, signer: EnvelopeSigner): DsseEnvelope {
  const body = utf8ToBytes(JSON.stringify(statement));
  const sig = signer.sign(pae(IN_TOTO_PAYLOAD_TYPE, body));
  return {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: base64Encode(body),
    signatures: [{ keyid: signer.keyid, sig: base64Encode(sig) }],
  };
}

/** The statement inside an envelope, unverified (for display and tests). Throws on undecodable payloads. */
export function statementOf(envelope: Pick<DsseEnvelope, 'payload'>): unknown {
  return JSON.parse(bytesToUtf8(base64Decode(envelope.payload))) as unknown;
}
