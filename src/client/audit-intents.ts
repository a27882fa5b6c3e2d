import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import type { AuditEvent } from '../common/audit';
import type { GateInput } from '../common/gate-state';
import type { AuditIntent, AuditStore } from '../store/audit-store';
import type { CallerEvents } from '../workflow/gate/messages';
import { isWorkflowNotFound } from './temporal-errors';

/**
 * How a caller writes the audit events of what it creates, decides and consumes
 * (GateClient with an audit store): it records an audit intent in the store before it
 * sends, then writes the events and removes the intent in one transaction. The gate,
 * told so (`CallerWrites.recorded`, `requested_event.recorded`), does not send those
 * events again when it ends. A caller that dies in between leaves the intent behind;
 * `recoverAuditIntents` reads the events from the gate's history and writes them. A
 * store that refuses the intent costs nothing but the saving: the caller then sends
 * without `recorded`, and the gate sends the events again itself, as before intents.
 */
export class CallerAudit {
  constructor(private readonly store: AuditStore) {}

  /** Records an intent; undefined when the store refused it. */
  async intend(i: { request_id: string; update_id?: string; event?: AuditEvent }): Promise<string | undefined> {
    return this.store.recordIntent(i).catch(() => undefined);
  }

  /**
   * Writes the events the create or update appended; with an intent, removes it in the same
   * transaction. A failed write is not the caller's problem: the intent stays for recovery
   * (without one, the gate sends the events again).
   */
  async settle(intent: string | undefined, events: AuditEvent[]): Promise<void> {
    if (intent) await this.store.settleIntent(intent, events).catch(() => undefined);
    else if (events.length > 0) await this.store.appendMany(events).catch(() => undefined);
  }

  /** The create or update appended nothing (refused, or a replayed key): the intent goes. */
  async drop(intent: string | undefined): Promise<void> {
    if (intent) await this.store.dropIntent(intent).catch(() => undefined);
  }
}

/** What one `recoverAuditIntents` pass did. */
export interface IntentRecovery {
  /** Intents whose events are now in the store. */
  written: number;
  /** Intents that promised nothing after all (no gate, a start that lost, an update never applied). */
  dropped: number;
  /** Intents whose update may still be applied (its gate is open and its history has no answer yet). */
  kept: number;
  /** Intents this pass could not look at (Temporal or the store unreachable); tried again next pass. */
  failed: number;
}

export interface RecoverOptions {
  /** Only intents at least this old (default 60 s): younger ones may be a caller still at work. */
  olderThanMs?: number;
  /** Intents per pass (default 100). */
  limit?: number;
}

/**
 * Finishes what callers that died left behind: for each stale intent, the gate's history
 * says what to write. A create's event is written when the gate's input names it (the
 * start happened); an update's events when its completion is in the history (they are its
 * result). An intent whose gate does not exist, or whose gate closed without the update,
 * is dropped. Only events that are in the gate's history ever reach the store.
 */
export async function recoverAuditIntents(
  client: Client,
  store: AuditStore,
  options: RecoverOptions = {},
): Promise<IntentRecovery> {
  const before = new Date(Date.now() - (options.olderThanMs ?? 60_000)).toISOString();
  const out: IntentRecovery = { written: 0, dropped: 0, kept: 0, failed: 0 };
  for (const intent of await store.staleIntents(before, options.limit ?? 100)) {
    try {
      const outcome = await resolveIntent(client, intent);
      if (outcome === 'kept') {
        out.kept++;
        continue;
      }
      if (outcome === 'dropped') await store.dropIntent(intent.intent_id);
      else await store.settleIntent(intent.intent_id, outcome);
      out[outcome === 'dropped' ? 'dropped' : 'written']++;
    } catch {
      out.failed++;
    }
  }
  return out;
}

type History = temporal.api.history.v1.IHistory;

async function resolveIntent(client: Client, intent: AuditIntent): Promise<AuditEvent[] | 'dropped' | 'kept'> {
  let history: History;
  try {
    history = await client.workflow.getHandle(intent.request_id).fetchHistory();
  } catch (err) {
    if (isWorkflowNotFound(err)) return 'dropped';
    throw err;
  }
  const events = history.events ?? [];
  const converter = client.options.loadedDataConverter;
  if (intent.event) {
    // The first execution's input names the creator's event; a later one (the gate continued as new) does not.
    let started = events[0]?.workflowExecutionStartedEventAttributes;
    const first = started?.firstExecutionRunId;
    if (first && first !== started?.originalExecutionRunId) {
      const h = await client.workflow.getHandle(intent.request_id, first).fetchHistory();
      started = h.events?.[0]?.workflowExecutionStartedEventAttributes;
    }
    const input = await decodeFromPayloadsAtIndex<GateInput>(converter, 0, started?.input?.payloads);
    // Another start may have won the key: then the gate's first event is its own, not this one.
    return input?.requested_event?.event_id === intent.event.event_id ? [intent.event] : 'dropped';
  }
  for (const e of events) {
    const done = e.workflowExecutionUpdateCompletedEventAttributes;
    if (done?.meta?.updateId !== intent.update_id) continue;
    if (!done?.outcome?.success) return 'dropped'; // refused: appended nothing
    const result = await decodeFromPayloadsAtIndex<CallerEvents>(converter, 0, done.outcome.success.payloads);
    return result?.audit_events ?? [];
  }
  // Not answered in this execution: the update may still be applied while the gate is open.
  return isClosed(events) ? 'dropped' : 'kept';
}

function isClosed(events: temporal.api.history.v1.IHistoryEvent[]): boolean {
  const last = events[events.length - 1];
  return Boolean(
    last &&
    (last.workflowExecutionCompletedEventAttributes ||
      last.workflowExecutionFailedEventAttributes ||
      last.workflowExecutionTimedOutEventAttributes ||
      last.workflowExecutionCanceledEventAttributes ||
      last.workflowExecutionTerminatedEventAttributes ||
      last.workflowExecutionContinuedAsNewEventAttributes),
  );
}
