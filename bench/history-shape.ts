// What one lifecycle costs the server, read from its history: workflow tasks, activities
// (regular and local, the latter as markers), timers, search-attribute upserts, markers.
// An `info` figure beside the overhead ratios, so a change in the gate's shape shows.
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const T = temporal.api.enums.v1.EventType;

/** Counts of the history events that cost the server a task or a write, for one execution. */
export async function historyShape(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const count = (t: number): number => events.filter((e) => e.eventType === t).length;
  const markers = events.filter((e) => e.eventType === T.EVENT_TYPE_MARKER_RECORDED);
  const local = markers.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
  return [
    `${events.length} events`,
    `${count(T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)} workflow tasks`,
    `${count(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)} activities`,
    `${local} local activities`,
    `${count(T.EVENT_TYPE_TIMER_STARTED)} timers`,
    `${count(T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)} upserts`,
    `${markers.length - local} patch markers`,
    `${count(T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)} updates`,
  ].join(', ');
}
