import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { AuditEvent } from '../../src/common/audit';
import type { DecisionMessage, ReviewerAuth } from '../../src/common/decision';
import { keyIdOf, type DsseEnvelope } from '../../src/common/dsse';
import { EvidencePayload, payloadSha256 } from '../../src/common/evidence';
import {
  approvalStatement,
  signedEnvelope,
  statementOf,
  type EnvelopeSigner,
} from '../../src/common/evidence-statement';
import {
  applyDecision,
  consumeApproval,
  initialGateState,
  type AuditSpec,
  type GateInput,
  type GateState,
} from '../../src/common/gate-state';
import { auditEventFor, requestedEvent } from '../../src/common/requested-event';
import type { TrustedKey } from '../../src/common/evidence-verify';
import { rawPublicKey } from '../../src/evidence/signing-keys';

// Gates driven through the same pure steps the approvalGate workflow takes (the state
// machine and the trail's event builder), so their chains are the ones a gate writes.

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
export const AGENT = 'refund-bot';

/** An Ed25519 key pair as a signer and as the verifier's trusted key. */
export interface TestKey {
  privateKey: KeyObject;
  keyid: string;
  signer: EnvelopeSigner;
  trusted(status?: TrustedKey['status']): TrustedKey;
}

export function testKey(): TestKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  const raw = rawPublicKey(privateKey);
  const keyid = keyIdOf(raw);
  return {
    privateKey,
    keyid,
    signer: { keyid, sign: (m) => new Uint8Array(sign(null, m, privateKey)) },
    trusted: (status) => ({ public_key: raw, ...(status ? { status } : {}) }),
  };
}

/** A gate's state and its chain, moved by the test step by step. */
export class SimulatedGate {
  readonly events: AuditEvent[] = [];
  readonly state: GateState;
  private tick = 0;
  private n = 0;

  constructor(opts: { approvals_required?: number; roles?: string[]; args?: Record<string, unknown> } = {}) {
    const payload = EvidencePayload.parse({
      request_id: `appr_sim_${Math.random().toString(16).slice(2, 10)}`,
      correlation_id: 'corr_1',
      agent_id: AGENT,
      trigger_event_id: 'evt_ticket_4081',
      action: 'refund.create',
      target: 'ch_3MvICBLkdIwHu7ix',
      summary: 'Refund 145 USD for ticket #4081',
      blast_radius: { amount_cents: 14500, currency: 'usd' },
      args: opts.args ?? { charge: 'ch_3MvICBLkdIwHu7ix', amount: 14500 },
      idempotency_key: 'idem_1',
      expires_at: '2030-01-02T00:00:00.000Z',
      ...(opts.roles
        ? {
            reviewer_policy: {
              rule: 'refund.*',
              roles: opts.roles,
              approvals_required: opts.approvals_required ?? 1,
              policy_sha256: 'd'.repeat(64),
            },
          }
        : {}),
    });
    const input: GateInput = {
      payload,
      payload_sha256: payloadSha256(payload),
      approvals_required: opts.approvals_required ?? 1,
      executor: 'external',
      consume_ttl_seconds: 3600,
      create_sha256: 'c'.repeat(64),
    };
    const at = this.now();
    this.state = initialGateState(input, at);
    this.events.push(requestedEvent(input, { event_id: 'evt_0', timestamp: at }));
  }

  private now(): string {
    return new Date(T0 + 60_000 * this.tick++).toISOString();
  }

  /** Appends events as the gate's trail does. */
  append(...specs: AuditSpec[]): this {
    for (const spec of specs) {
      const prev = this.events[this.events.length - 1];
      const ids = { event_id: `evt_${++this.n}`, timestamp: this.now() };
      this.events.push(auditEventFor(prev, this.state, spec, ids));
    }
    return this;
  }

  /** A reviewer's decision through the state machine, authenticated by an API key of the same id unless `auth` says otherwise. */
  decide(
    reviewer: string,
    decision: DecisionMessage['decision'],
    over: Partial<DecisionMessage> & { auth?: ReviewerAuth | null } = {},
  ): this {
    const { auth, ...rest } = over;
    const d: DecisionMessage = {
      decision_id: `dec_${++this.n}`,
      reviewer_id: reviewer,
      decision,
      payload_sha256: this.state.payload_sha256,
      ...(auth === null ? {} : { reviewer_auth: auth ?? { method: 'api_key', key_id: reviewer } }),
      reviewer_roles: [],
      ...(decision === 'reject' ? { reason: 'not covered by the refund policy' } : {}),
      ...rest,
    };
    const { events } = applyDecision(this.state, d, this.now());
    return this.append(...events);
  }

  consume(): this {
    consumeApproval(this.state, AGENT, this.now(), `consumed by ${AGENT}`);
    return this.append({
      event_type: 'approval.consumed',
      actor_type: 'agent',
      actor_id: AGENT,
      data: { args_sha256: this.state.final_args_sha256 },
    });
  }

  /** The signed bundle of the gate as it stands. */
  bundle(key: TestKey): DsseEnvelope {
    return signStatement(this.statement(), key);
  }

  statement(): Record<string, unknown> {
    const { statement } = approvalStatement({
      payload: this.state.payload,
      events: this.events,
      exported_at: '2030-01-03T00:00:00.000Z',
      exporter: { name: 'approval-gate', version: 'test' },
    });
    return JSON.parse(JSON.stringify(statement)) as Record<string, unknown>;
  }
}

export function signStatement(statement: unknown, key: TestKey): DsseEnvelope {
  return signedEnvelope(statement, key.signer);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- decoded JSON, edited field by field by the tamper tests
type Editable = Record<string, any>;

/** The statement of a bundle, as a mutable copy. */
export function decoded(bundle: DsseEnvelope): Editable & { predicate: Editable } {
  return statementOf(bundle) as Editable & { predicate: Editable };
}

/** `text` with the character at `i` replaced by another of the same kind (one byte changed). */
export function flipChar(text: string, i: number): string {
  const c = text[i]!;
  const alphabet = /[0-9a-f]/.test(c)
    ? '0123456789abcdef'
    : 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const next = alphabet[(alphabet.indexOf(c) + 1) % alphabet.length]!;
  return text.slice(0, i) + next + text.slice(i + 1);
}
