import { CancellationScope, ParentClosePolicy, condition, proxyActivities, startChild, uuid4 } from '@temporalio/workflow';
import { chainEvent, WEBHOOK_EVENT_TYPES, type AuditEvent } from '../core/audit';
import type { AuditSpec } from '../core/gate-state';
import type { DeliverWebhooksInput, GateActivities } from '../activities/contracts';
import { webhookDeliveryWorkflow } from './webhook-delivery';

const { recordAuditEvent } = proxyActivities<GateActivities>({
  // One insert; short, so a write lost with a crashed worker is retried in seconds (the insert is idempotent).
  startToCloseTimeout: '10s',
  // The store must get every event: retry until it does (durability over latency).
  retry: { initialInterval: '1s', maximumInterval: '30s', backoffCoefficient: 2 },
});

const { deliverWebhooks } = proxyActivities<GateActivities>({
  startToCloseTimeout: '2m',
  heartbeatTimeout: '1m',
  // First attempts run inside the gate; what is still failing when the gate ends is handed
  // to a detached webhookDeliveryWorkflow (see flush), so receivers never delay outcomes.
  retry: { initialInterval: '1s', maximumInterval: '10s', backoffCoefficient: 2, maximumAttempts: 30 },
});

/** How long a finishing gate waits for in-flight deliveries before handing them off. */
const HANDOFF_GRACE_MS = 3000;

/**
 * A request's hash-chained trail inside the workflow: the chain lives in history (so
 * replay rebuilds it), each event is also written to the append-only store, and
 * lifecycle events go out as webhooks. Writes run in the background; `flush` awaits them.
 */
export class AuditTrail {
  readonly events: AuditEvent[] = [];
  private readonly pending: Promise<unknown>[] = [];
  private readonly deliveries: { input: DeliverWebhooksInput; done: boolean }[] = [];

  constructor(
    private readonly requestId: string,
    private readonly payloadSha256: string | null,
    /** Extra fields for webhook bodies (status, action, target…), read at append time. */
    private readonly webhookData: () => Record<string, unknown>,
  ) {}

  append(spec: AuditSpec): AuditEvent {
    const event = chainEvent(this.events[this.events.length - 1], {
      event_id: `evt_${uuid4()}`, // workflow uuid4: deterministic on replay
      request_id: this.requestId,
      event_type: spec.event_type,
      actor_type: spec.actor_type,
      actor_id: spec.actor_id,
      payload_sha256: this.payloadSha256,
      note: spec.note ?? null,
      timestamp: new Date().toISOString(), // workflow clock: deterministic
      data: spec.data ?? {},
    });
    this.events.push(event);
    // Non-cancellable: the `*.cancelled` events are appended after a cancel arrives and must still be written.
    this.pending.push(CancellationScope.nonCancellable(() => recordAuditEvent(event)));
    if (WEBHOOK_EVENT_TYPES.includes(event.event_type)) {
      const d = {
        done: false,
        input: {
          message_id: `msg_${event.event_id.slice(4)}`,
          event_type: event.event_type,
          body: {
            type: event.event_type,
            timestamp: event.timestamp,
            data: { ...this.webhookData(), event_id: event.event_id, actor_type: event.actor_type, actor_id: event.actor_id, note: event.note },
          },
        },
      };
      this.deliveries.push(d);
      // A receiver that is down must not fail or delay the gate; see flush.
      void CancellationScope.nonCancellable(() => deliverWebhooks(d.input)).then(() => (d.done = true), () => undefined);
    }
    return event;
  }

  /**
   * Waits for every store write; gives webhook deliveries a short grace, then hands
   * the undelivered ones to detached workflows that keep retrying (at least once).
   */
  async flush(): Promise<void> {
    await Promise.all(this.pending);
    const open = (): typeof this.deliveries => this.deliveries.filter((d) => !d.done);
    if (open().length > 0) await condition(() => open().length === 0, HANDOFF_GRACE_MS);
    for (const d of open()) {
      await startChild(webhookDeliveryWorkflow, {
        workflowId: `webhook-${d.input.message_id}`,
        args: [d.input],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
      d.done = true;
    }
  }
}
