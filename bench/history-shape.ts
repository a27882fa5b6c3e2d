// What one lifecycle costs the server, read from its history: workflow tasks, activities
// (regular and local, the latter as markers), timers, search-attribute upserts, markers.
// An `info` figure beside the overhead ratios, so a change in the gate's shape shows.
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { median } from './stats';

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

/** Milliseconds of a history event's time. */
function eventMs(e: temporal.api.history.v1.IHistoryEvent): number {
  return Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
}

/** Per workflow task of one execution (in order): scheduled..started (wait) and started..completed (run), ms. */
export async function taskTimes(handle: WorkflowHandle): Promise<{ wait: number; run: number }[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  const out: { wait: number; run: number }[] = [];
  let scheduled = 0;
  let started = 0;
  for (const e of events) {
    if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) scheduled = eventMs(e);
    else if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_STARTED) started = eventMs(e);
    else if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
      out.push({ wait: started - scheduled, run: eventMs(e) - started });
  }
  return out;
}

/**
 * Medians over executions of the server's timestamps of their workflow tasks: how long
 * the first task waited for a worker, how long it ran (poll answered .. completion
 * received: the worker's activation and both transfers), and how long the later ones ran.
 */
export async function taskTimeline(handles: WorkflowHandle[]): Promise<string> {
  const all = await Promise.all(handles.map(taskTimes));
  const first = all.map((t) => t[0]).filter((t): t is { wait: number; run: number } => t !== undefined);
  const later = all.flatMap((t) => t.slice(1));
  return (
    `first task waited ${median(first.map((t) => t.wait)).toFixed(1)} ms, ran ${median(first.map((t) => t.run)).toFixed(1)} ms; ` +
    `later tasks waited ${median(later.map((t) => t.wait)).toFixed(1)} ms, ran ${median(later.map((t) => t.run)).toFixed(1)} ms`
  );
}

/**
 * Where a decision's way to the tool went, read from one execution's history (server
 * timestamps; the bench's clock is the same host's): offsets in ms from `sentMs` (epoch
 * ms, when the client began to send the decision) of the first workflow task scheduled
 * after it, that task's start and completion, and the start of the first activity it
 * scheduled. Undefined when the history has no such task or activity.
 */
export interface DecisionPath {
  scheduled: number;
  started: number;
  completed: number;
  activityStarted: number;
}

/** Clock slack between the bench's `sentMs` and the server's event times (one host, two readings). */
const SLACK_MS = 1;

export function decisionPath(
  events: readonly temporal.api.history.v1.IHistoryEvent[],
  sentMs: number,
): DecisionPath | undefined {
  const at = (from: number, type: number): number =>
    events.findIndex((e, i) => i >= from && e.eventType === type && eventMs(e) >= sentMs - SLACK_MS);
  const scheduled = at(0, T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
  const started = scheduled < 0 ? -1 : at(scheduled, T.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  const completed = started < 0 ? -1 : at(started, T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  const activity = completed < 0 ? -1 : at(completed, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
  const activityId = activity < 0 ? undefined : events[activity]!.eventId;
  const activityStarted = events.find(
    (e) =>
      e.eventType === T.EVENT_TYPE_ACTIVITY_TASK_STARTED &&
      String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(activityId),
  );
  if (!activityStarted) return undefined;
  const rel = (i: number): number => eventMs(events[i]!) - sentMs;
  return {
    scheduled: rel(scheduled),
    started: rel(started),
    completed: rel(completed),
    activityStarted: eventMs(activityStarted) - sentMs,
  };
}

/** Medians of decision paths, with the client's own marks (same offsets), as one line. */
export function decisionPathText(
  paths: readonly DecisionPath[],
  marks: Readonly<Record<string, readonly number[]>>,
): string {
  if (paths.length === 0) return 'n/a (no history had a decision task and its activity)';
  const m = (xs: readonly number[]): string => median(xs).toFixed(1);
  const own = Object.entries(marks).map(([name, xs]) => `${name} ${m(xs)}`);
  return (
    `ms after the decision was sent: task scheduled ${m(paths.map((p) => p.scheduled))}, ` +
    `started ${m(paths.map((p) => p.started))}, completed ${m(paths.map((p) => p.completed))}; ` +
    `activity started ${m(paths.map((p) => p.activityStarted))} (server)` +
    (own.length > 0 ? `; ${own.join(', ')}` : '')
  );
}
