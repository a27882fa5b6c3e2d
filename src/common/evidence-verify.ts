import { bytesToUtf8 } from '@noble/hashes/utils';
import { verifyChain, type AuditEvent } from './audit';
import { base64Decode, DsseEnvelope, IN_TOTO_PAYLOAD_TYPE, keyIdOf, pae } from './dsse';
import { evidenceFacts, type FactProblem } from './evidence-facts';
import { ApprovalStatement, ARGS_SUBJECT_SUFFIX } from './evidence-statement';
import { canonicalJson, digest } from './hashing';
import type { ApprovalStatus } from './lifecycle';

// Offline verification of an evidence bundle. Pure: the Ed25519 check is injected, so the
// CLI (node:crypto), a browser (WebCrypto) or another service runs the same steps.

/** The checks, in the order they run; a result names the first that failed. */
export const EvidenceCheck = {
  /** The document is a DSSE envelope of an in-toto payload. */
  Envelope: 'envelope',
  /** A signature names (by keyid) one of the trusted public keys. */
  Key: 'key',
  /** That key's Ed25519 signature over the DSSE pre-authentication encoding verifies. */
  Signature: 'signature',
  /** The payload is an in-toto Statement v1 with the approval predicate. */
  Statement: 'statement',
  /** The subjects' digests are the SHA-256 of the RFC 8785 JSON of the payload and the executed args. */
  Subjects: 'subjects',
  /** Every audit event's hash recomputes, each links to the one before, all concern this payload. */
  AuditChain: 'audit_chain',
  /** The executed args are the ones the events record (the payload's, or the last modification's). */
  Args: 'args',
  /** The decisions, rule and escalations stated are the ones the events record. */
  Decisions: 'decisions',
  /** Approval came from the required number of distinct, eligible reviewers. */
  Quorum: 'quorum',
  /** No decision was made by the agent that requested the action. */
  SelfApproval: 'self_approval',
  /** The stated outcome is where the events lead under the approval lifecycle. */
  Outcome: 'outcome',
} as const;
export type EvidenceCheck = (typeof EvidenceCheck)[keyof typeof EvidenceCheck];
export const EVIDENCE_CHECKS: readonly EvidenceCheck[] = Object.values(EvidenceCheck);

/** A public key the verifier trusts, with what its publisher says of it. */
export interface TrustedKey {
  /** The raw 32-byte Ed25519 public key; its keyid is computed from it, never taken on trust. */
  public_key: Uint8Array;
  /** `active` (signs new bundles) or `retired` (kept so that older bundles verify). */
  status?: 'active' | 'retired';
}

/** Ed25519 verification, e.g. node:crypto's `verify(null, message, key, signature)`. */
export type Ed25519Verify = (
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
) => boolean | Promise<boolean>;

export interface EvidenceVerifyOptions {
  keys: readonly TrustedKey[];
  verifyEd25519: Ed25519Verify;
}

export interface PassedCheck {
  check: EvidenceCheck;
  detail: string;
}

export type EvidenceVerification =
  | {
      ok: true;
      passed: PassedCheck[];
      request_id: string;
      status: ApprovalStatus;
      /** True when the bundle shows a request that had not reached a terminal state. */
      pending: boolean;
      keyid: string;
      key_status: 'active' | 'retired' | 'unknown';
    }
  | { ok: false; passed: PassedCheck[]; failed: { check: EvidenceCheck; message: string } };

/** The check each thrown failure names: control flow inside the verifier only, never an error a caller sees. */
const failedChecks = new WeakMap<Error, EvidenceCheck>();

function fail(check: EvidenceCheck, message: string): never {
  const failure = new Error(message);
  failedChecks.set(failure, check);
  throw failure;
}
const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/**
 * Verifies an evidence bundle with no server: each check of EvidenceCheck in order, up to
 * the first that fails. Never throws for a bad bundle (a failed check says why); throws
 * only if `verifyEd25519` does.
 */
export async function verifyEvidenceBundle(
  bundle: unknown,
  opts: EvidenceVerifyOptions,
): Promise<EvidenceVerification> {
  const passed: PassedCheck[] = [];
  const pass = (check: EvidenceCheck, detail: string): void => void passed.push({ check, detail });
  try {
    // envelope
    const env = DsseEnvelope.safeParse(bundle);
    if (!env.success) return fail('envelope', 'not a DSSE envelope ({ payloadType, payload, signatures })');
    const { payloadType, payload, signatures } = env.data;
    if (payloadType !== IN_TOTO_PAYLOAD_TYPE)
      fail('envelope', `payloadType is ${payloadType}, not ${IN_TOTO_PAYLOAD_TYPE}`);
    let body: Uint8Array = new Uint8Array();
    try {
      body = base64Decode(payload);
    } catch (err) {
      fail('envelope', `payload is not base64: ${(err as Error).message}`);
    }
    pass('envelope', `DSSE envelope, ${body.length} payload bytes, ${signatures.length} signature(s)`);

    // key
    const trusted = new Map(opts.keys.map((k) => [keyIdOf(k.public_key), k]));
    const named = signatures.filter((s) => trusted.has(s.keyid));
    if (named.length === 0)
      fail(
        'key',
        `signed by keyid ${signatures.map((s) => s.keyid).join(', ')}, which is not among the ${trusted.size} trusted key(s)`,
      );
    pass('key', `keyid ${named[0]!.keyid} is trusted`);

    // signature
    const message = pae(payloadType, body);
    let signer: { keyid: string; key: TrustedKey } | undefined;
    for (const s of named) {
      let sig: Uint8Array;
      try {
        sig = base64Decode(s.sig);
      } catch {
        continue;
      }
      const key = trusted.get(s.keyid)!;
      if (await opts.verifyEd25519(key.public_key, message, sig)) {
        signer = { keyid: s.keyid, key };
        break;
      }
    }
    if (!signer) return fail('signature', `no Ed25519 signature by keyid ${named[0]!.keyid} verifies over the payload`);
    pass('signature', `Ed25519 signature by ${signer.keyid} (${signer.key.status ?? 'trusted'} key)`);

    // statement
    let raw: unknown;
    try {
      raw = JSON.parse(bytesToUtf8(body));
    } catch {
      return fail('statement', 'the payload is not JSON');
    }
    const st = ApprovalStatement.safeParse(raw);
    if (!st.success) {
      const i = st.error.issues[0]!;
      return fail('statement', `not an approval Statement: ${i.path.join('.') || '(top)'}: ${i.message}`);
    }
    // Digests are taken of the JSON as decoded, not of the schema's output (which drops unknown keys).
    const p = (raw as { predicate: Record<string, unknown> }).predicate;
    const pred = st.data.predicate;
    pass('statement', `in-toto Statement v1, predicate ${st.data.predicateType}`);

    // subjects
    const [reqSubject, argsSubject] = st.data.subject as [
      { name: string; digest: { sha256: string } },
      { name: string; digest: { sha256: string } },
    ];
    const payloadSha = digest(p.payload);
    if (pred.payload.request_id !== pred.request_id || reqSubject.name !== pred.request_id)
      fail('subjects', `subject ${reqSubject.name} is not the payload's request ${String(pred.payload.request_id)}`);
    if (reqSubject.digest.sha256 !== payloadSha || pred.payload_sha256 !== payloadSha)
      fail('subjects', `the payload's canonical JSON hashes to ${payloadSha}, not ${reqSubject.digest.sha256}`);
    const argsSha = digest(p.final_args);
    if (argsSubject.name !== `${pred.request_id}${ARGS_SUBJECT_SUFFIX}`)
      fail('subjects', `the second subject is ${argsSubject.name}, not ${pred.request_id}${ARGS_SUBJECT_SUFFIX}`);
    if (argsSubject.digest.sha256 !== argsSha || pred.final_args_sha256 !== argsSha)
      fail('subjects', `the executed args' canonical JSON hashes to ${argsSha}, not ${argsSubject.digest.sha256}`);
    pass('subjects', `payload_sha256 ${payloadSha}, final_args_sha256 ${argsSha}`);

    // audit_chain
    const events = pred.audit.events as unknown as AuditEvent[];
    const chain = verifyChain(events);
    if (!chain.ok) fail('audit_chain', `event at index ${chain.index}: ${chain.reason}`);
    const stray = events.find((e) => e.request_id !== pred.request_id || e.payload_sha256 !== payloadSha);
    if (stray) fail('audit_chain', `event ${stray.seq} (${stray.event_id}) belongs to another request or payload`);
    const head = events.length > 0 ? events[events.length - 1]!.hash : null;
    if (pred.audit.count !== events.length || pred.audit.head_hash !== head)
      fail('audit_chain', `the stated count and head hash are not those of the ${events.length} events`);
    pass('audit_chain', `${events.length} events, head ${head ?? 'none'}`);

    const { facts, problems } = evidenceFacts(p.payload as Record<string, unknown>, events);
    const first = (check: FactProblem['check']): void => {
      const found = problems.find((x) => x.check === check);
      if (found) fail(check, found.message);
    };

    // args
    first('args');
    if (!same(p.final_args, facts.final_args))
      fail('args', `the executed args are not the ones the events record (digest ${facts.final_args_sha256})`);
    pass('args', facts.final_args_sha256 === digest(pred.payload.args) ? 'as requested' : 'as modified by a reviewer');

    // decisions
    for (const field of ['executor', 'policy', 'escalations'] as const)
      if (!same(p[field] ?? null, facts[field])) fail('decisions', `the stated ${field} is not what the events record`);
    const stated = p.decisions as unknown[];
    if (stated.length !== facts.decisions.length)
      fail('decisions', `${stated.length} decisions stated, ${facts.decisions.length} recorded in the events`);
    facts.decisions.forEach((d, i) => {
      if (!same(stated[i], d)) {
        const s = stated[i] as { reviewer_id?: unknown };
        const who =
          s.reviewer_id === d.reviewer_id ? d.reviewer_id : `${String(s.reviewer_id)} (events: ${d.reviewer_id})`;
        fail('decisions', `decision ${i + 1} by ${who} differs from what its audit events record`);
      }
    });
    pass('decisions', facts.decisions.map((d) => `${d.reviewer_id}: ${d.decision}`).join(', ') || 'none yet');

    // quorum
    first('quorum');
    if (!same(p.quorum, facts.quorum)) fail('quorum', 'the stated quorum is not the one the events record');
    const q = facts.quorum;
    pass(
      'quorum',
      `${new Set(q.reviewers).size} distinct of ${q.approvals_required} required${q.roles.length ? ` (roles ${q.roles.join(', ')})` : ''}`,
    );

    // self_approval
    first('self_approval');
    pass('self_approval', `no decision by the requester ${String(pred.payload.agent_id)}`);

    // outcome
    first('outcome');
    if (!same(p.outcome, facts.outcome) || pred.pending !== facts.outcome.pending)
      fail('outcome', `the bundle states ${pred.outcome.status}, but the events lead to ${facts.outcome.status}`);
    pass('outcome', `${facts.outcome.status}${facts.outcome.pending ? ' (pending: not a final outcome)' : ''}`);

    return {
      ok: true,
      passed,
      request_id: pred.request_id,
      status: facts.outcome.status,
      pending: facts.outcome.pending,
      keyid: signer.keyid,
      key_status: signer.key.status ?? 'unknown',
    };
  } catch (err) {
    const check = err instanceof Error ? failedChecks.get(err) : undefined;
    if (check) return { ok: false, passed, failed: { check, message: (err as Error).message } };
    throw err;
  }
}
