import { randomUUID } from 'node:crypto';
import type { AuditEvent } from '../../src/common/audit';
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
