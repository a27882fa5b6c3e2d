import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { tsToDate } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import type { DecisionMessage } from '../common/decision';
import { initialGateState, type GateInput, type GateState } from '../common/gate-state';
import { decideSignal } from '../workflow/gate/messages';
import type { PendingDecision } from './gate-views';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What a gate's history says while its workers are behind. */
export interface QueuedRead {
  /**
   * The gate's state, when no workflow task of this execution has completed yet: then it
   * is exactly what the gate starts with (its input's, or what the previous execution
   * carried over), and the API need not wait for a worker to show it.
   */
  state?: GateState;
  /** Decisions sent by signal that the gate has not applied yet. */
  pending: PendingDecision[];
}

/**
 * Reads a gate's history for what a worker has not yet applied: the decisions signalled
 * after its last completed workflow task (one that came while a task was running is held
 * beside the history until that task ends, and is not listed meanwhile) and, before its
 * first task has completed, its starting state.
 */
export async function readQueued(client: Client, id: string): Promise<QueuedRead> {
  const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  let lastDone = -1;
  events.forEach((e, i) => (lastDone = e.workflowTaskCompletedEventAttributes ? i : lastDone));
  const converter = client.options.loadedDataConverter;
  const pending: PendingDecision[] = [];
  for (const e of events.slice(lastDone + 1)) {
    const sig = e.workflowExecutionSignaledEventAttributes;
    if (sig?.signalName !== decideSignal.name) continue;
    const d = await decodeFromPayloadsAtIndex<Partial<DecisionMessage>>(converter, 0, sig.input?.payloads);
    if (!d || typeof d.decision_id !== 'string') continue;
    pending.push({
      decision_id: d.decision_id,
      decision: String(d.decision),
      reviewer_id: String(d.reviewer_id),
      sent_at: timeOf(e),
    });
  }
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  if (lastDone >= 0 || !started) return { pending };
  const input = await decodeFromPayloadsAtIndex<GateInput>(converter, 0, started.input?.payloads);
  if (!input?.payload) return { pending };
  const state = input.continued ? input.continued.state : initialGateState(input, timeOf(events[0]!));
  return { state, pending };
}

function timeOf(e: HistoryEvent): string {
  return e.eventTime ? tsToDate(e.eventTime).toISOString() : '';
}
