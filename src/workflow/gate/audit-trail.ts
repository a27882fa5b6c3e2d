import {
  CancellationScope,
  ParentClosePolicy,
  condition,
  proxyActivities,
  startChild,
  uuid4,
} from '@temporalio/workflow';
import { WEBHOOK_EVENT_TYPES, type AuditEvent } from '../../common/audit';
import { auditEventFor, type RequestedEventIds } from '../../common/requested-event';
import type { AuditSpec, GateCarry } from '../../common/gate-state';
import type { DeliverWebhooksInput, GateActivities } from '../../worker/activities/contracts';
import { webhookDeliveryWorkflow } from '../webhook-delivery/webhook-delivery';

/**
 * Store writes, one batch per workflow task: a task's events go in one regular activity,
 * scheduled when the task completes, so the store only receives events already in history.
 */
const store = proxyActivities<GateActivities>({
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

/** An event still to send to the store; `recorded` when its caller holds an audit intent for it. */
interface Unsent {
  event: AuditEvent;
  webhook?: DeliverWebhooksInput;
  recorded?: true;
}

interface Delivery {
  input: DeliverWebhooksInput;
  done: boolean;
}

/**
 * A request's hash-chained trail inside the workflow: the chain lives in history (so
 * replay rebuilds it), each event is also written to the append-only store, and
 * lifecycle events go out as webhooks. Writes run in the background; `flush` awaits them.
 */
export class AuditTrail {
  readonly events: AuditEvent[] = [];
  private readonly deliveries: Delivery[] = [];
  /** Events not yet handed to the store, with their webhook inputs. */
  private unsent: Unsent[] = [];
  /** The batch being written right now (acknowledged when its activity completes). */
  private inflight: Unsent[] = [];
  private writer: Promise<void> | undefined;

  constructor(
    private readonly requestId: string,
    private readonly payloadSha256: string | null,
    /** Extra fields for webhook bodies (status, action, target…), read at append time. */
    private readonly webhookData: () => Record<string, unknown>,
    /** The last event of the chain so far, when it continues one (a run after continue-as-new). */
    private head?: AuditEvent,
    /** Sees each appended event (metrics); must not issue commands. */
    private readonly observe?: (event: AuditEvent) => void,
    /** The clock of the events' timestamps (epoch ms): a gate's never runs behind its fired timers (deadlines.ts). */
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /** The trail's clock as an ISO timestamp: the time its next event would carry. */
  now(): string {
    return new Date(this.clock()).toISOString();
  }

  /**
   * Takes over the chain of the execution before this one (continue-as-new), with what it
   * had not finished: its unacknowledged writes are sent again, its open webhooks delivered again.
   */
  resume(carry: Pick<GateCarry, 'events' | 'unwritten' | 'deliveries'>): void {
    this.events.push(...carry.events);
    this.unsent.push(...carry.unwritten);
    if (this.unsent.length > 0) this.writer ??= this.writeBatches();
    for (const d of carry.deliveries) this.deliver(d);
  }

  /** What this execution has not finished, for the next one: writes in flight or queued, webhooks undelivered. */
  handOver(): Pick<GateCarry, 'events' | 'unwritten' | 'deliveries'> {
    return {
      events: [...this.events],
      unwritten: [...this.inflight, ...this.unsent],
      deliveries: this.deliveries.filter((d) => !d.done).map((d) => d.input),
    };
  }

  /** The newest event of the chain, whether or not it is still held in `events`. */
  get last(): AuditEvent | undefined {
    return this.events[this.events.length - 1] ?? this.head;
  }

  append(spec: AuditSpec): AuditEvent {
    // Workflow uuid4 and clock: deterministic on replay.
    const event = this.build(spec, { event_id: `evt_${uuid4()}`, timestamp: this.now() });
    const webhook = this.webhookOf(event);
    this.unsent.push({ event, ...(webhook ? { webhook } : {}) });
    this.writer ??= this.writeBatches();
    return event;
  }

  /**
   * Appends an event the creator has already written to the store: no write is scheduled for it now; it rides along with the next batch (an idempotent
   * insert, in case the creator failed before its write), which also delivers its webhook
   * if receivers are configured.
   */
  appendStored(spec: AuditSpec, ids: RequestedEventIds, recorded = false): AuditEvent {
    const event = this.build(spec, ids);
    const webhook = this.webhookOf(event);
    this.unsent.push({ event, ...(webhook ? { webhook } : {}), ...(recorded ? { recorded: true as const } : {}) });
    return event;
  }

  /**
   * Appends an event that the update's caller writes to the store (`CallerWrites`): as with
   * `appendStored`, no write is scheduled for it now; the gate's next batch carries it, at
   * the latest the one of its last task.
   */
  appendForCaller(spec: AuditSpec, recorded = false): AuditEvent {
    // Workflow uuid4 and clock, as in append: deterministic on replay.
    return this.appendStored(spec, { event_id: `evt_${uuid4()}`, timestamp: this.now() }, recorded);
  }

  private build(spec: AuditSpec, ids: RequestedEventIds): AuditEvent {
    const event = auditEventFor(
      this.last,
      { request_id: this.requestId, payload_sha256: this.payloadSha256 },
      spec,
      ids,
    );
    this.events.push(event);
    this.observe?.(event);
    return event;
  }

  private webhookOf(event: AuditEvent): DeliverWebhooksInput | undefined {
    return WEBHOOK_EVENT_TYPES.includes(event.event_type) ? this.webhookInput(event) : undefined;
  }

  /**
   * Waits for every store write; gives webhook deliveries a short grace, then hands
   * the undelivered ones to detached workflows that keep retrying (at least once).
   */
  async flush(): Promise<void> {
    if (this.unsent.length > 0) {
      // Events their callers hold audit intents for are theirs to write (or their recovery's);
      // any other event still to send takes them all along (the insert is idempotent).
      if (this.unsent.every((u) => u.recorded)) this.unsent = [];
      else this.writer ??= this.writeBatches(); // events appended as stored, not yet re-sent
    }
    if (this.writer) await this.writer;
    const open = (): Delivery[] => this.deliveries.filter((d) => !d.done);
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

  /**
   * One activity at a time writes everything appended so far (one task's events usually
   * go in one insert); events appended meanwhile go in the next batch. The store's answer
   * says whether webhook receivers exist, so a gate without receivers schedules no
   * webhook activity at all.
   */
  private writeBatches(): Promise<void> {
    // Non-cancellable: the `*.cancelled` events are appended after a cancel arrives and must still be written.
    return CancellationScope.nonCancellable(async () => {
      await Promise.resolve(); // let the current handler append the rest of its events first
      while (this.unsent.length > 0) {
        const batch = this.unsent;
        this.unsent = [];
        this.inflight = batch;
        const { webhook_receivers } = await store.recordAuditEvents({ events: batch.map((b) => b.event) });
        this.inflight = [];
        if (webhook_receivers > 0) for (const b of batch) if (b.webhook) this.deliver(b.webhook);
      }
      this.writer = undefined;
    });
  }

  private webhookInput(event: AuditEvent): DeliverWebhooksInput {
    return {
      message_id: `msg_${event.event_id.slice(4)}`,
      event_type: event.event_type,
      body: {
        type: event.event_type,
        timestamp: event.timestamp,
        data: {
          ...this.webhookData(),
          event_id: event.event_id,
          actor_type: event.actor_type,
          actor_id: event.actor_id,
          note: event.note,
          ...escalationFields(event),
        },
      },
    };
  }

  /** A receiver that is down must not fail or delay the gate; see flush. */
  private deliver(input: DeliverWebhooksInput): void {
    const d: Delivery = { done: false, input };
    this.deliveries.push(d);
    void CancellationScope.nonCancellable(() => deliverWebhooks(d.input)).then(
      () => (d.done = true),
      () => undefined,
    );
  }
}

/**
 * An escalation chain's level in the webhook body: `{level, loop, targets, roles_added}`.
 * Only events of a chain carry a level, so the bodies of older gates stay as they were.
 */
function escalationFields(event: AuditEvent): Record<string, unknown> {
  const d = event.data;
  if (event.event_type !== 'approval.escalated' || typeof d.level !== 'number') return {};
  return { level: d.level, loop: d.loop, targets: d.targets, roles_added: d.roles_added };
}
