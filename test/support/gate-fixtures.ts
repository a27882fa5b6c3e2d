import { randomUUID } from 'node:crypto';
import type { AuditEvent } from '../../src/common/audit';
import type { DecisionMessage } from '../../src/common/decision';
import { payloadSha256, type EvidencePayload } from '../../src/common/evidence';
import type { GateInput } from '../../src/common/gate-state';
import { digest } from '../../src/common/hashing';
import type { AuditStore } from '../../src/store/audit-store';

/** The trail's activities writing into `audit`, with no webhook receivers: what an external gate needs. */
export function storeActivities(audit: AuditStore) {
  return {
    recordAuditEvents: async ({ events }: { events: AuditEvent[] }) => (
      await audit.appendMany(events),
      { webhook_receivers: 0 }
    ),
    deliverWebhooks: async () => ({ delivered: [] as string[] }),
  };
}

/** A create body for a 40 EUR refund on ch_1, unique by its trigger event id. */
export function refundBody(correlationId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    correlation_id: correlationId,
    trigger_event_id: `evt-${randomUUID()}`,
    action: 'refund.create',
    target: 'ch_1',
    summary: 'Refund 40 EUR',
    blast_radius: { amount_cents: 4000 },
    args: { charge: 'ch_1', amount: 4000 },
    preconditions: {},
    ttl_seconds: 600,
    ...over,
  };
}

/**
 * The approvalGate workflow's input around `payload`, as a create over HTTP starts it: hashed,
 * one approval, the `external` executor, a 10-minute consume deadline; `over` replaces any field.
 */
export function gateInputFor(payload: EvidencePayload, over: Partial<GateInput> = {}): GateInput {
  return {
    payload,
    payload_sha256: payloadSha256(payload),
    approvals_required: 1,
    executor: 'external',
    consume_ttl_seconds: 600,
    create_sha256: digest(payload),
    ...over,
  };
}

/** An approving decision on the gate whose payload hash is `gate`'s (or `gate` itself), by rev-1 unless `over` says. */
export function approvalOf(
  gate: string | Pick<GateInput, 'payload_sha256'>,
  over: Partial<DecisionMessage> = {},
): DecisionMessage {
  return {
    decision_id: randomUUID(),
    reviewer_id: 'rev-1',
    decision: 'approve',
    payload_sha256: typeof gate === 'string' ? gate : gate.payload_sha256,
    ...over,
  };
}
