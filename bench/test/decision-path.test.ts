import { temporal } from '@temporalio/proto';
import { decisionPath, decisionPathText } from '../history-shape';

const T = temporal.api.enums.v1.EventType;
const base = Date.parse('2026-12-03T12:00:00Z');

/** A history event of `type` at `ms` after `base` (with sub-millisecond nanos). */
function ev(id: number, type: number, ms: number, attrs: Record<string, unknown> = {}) {
  const t = base + ms;
  return temporal.api.history.v1.HistoryEvent.fromObject({
    eventId: id,
    eventType: type,
    eventTime: { seconds: Math.floor(t / 1000), nanos: Math.round((t % 1000) * 1e6) },
    ...attrs,
  });
}

/** A gate's tool path: its first task at 0, then (250 ms later) the decision's task and the tool activity. */
const history = [
  ev(1, T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 0),
  ev(2, T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 0),
  ev(3, T.EVENT_TYPE_WORKFLOW_TASK_STARTED, 2),
  ev(4, T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 9),
  ev(5, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 9.2), // the first task's own activity (an audit write)
  ev(6, T.EVENT_TYPE_ACTIVITY_TASK_STARTED, 9.3, { activityTaskStartedEventAttributes: { scheduledEventId: 5 } }),
  ev(7, T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 253.6),
  ev(8, T.EVENT_TYPE_WORKFLOW_TASK_STARTED, 254.8),
  ev(9, T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 264.3),
  ev(10, T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, 264.3),
  ev(11, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 264.5),
  ev(12, T.EVENT_TYPE_ACTIVITY_TASK_STARTED, 264.6, { activityTaskStartedEventAttributes: { scheduledEventId: 11 } }),
];

describe('the tool path read from a history', () => {
  it('times the first task after the decision and the activity that task scheduled', () => {
    const p = decisionPath(history, base + 250);
    expect(p).toBeDefined();
    expect(p!.scheduled).toBeCloseTo(3.6, 3);
    expect(p!.started).toBeCloseTo(4.8, 3);
    expect(p!.completed).toBeCloseTo(14.3, 3);
    expect(p!.activityStarted).toBeCloseTo(14.6, 3); // not the first task's activity (9.3 ms after the start)
  });

  it('finds nothing when no task follows the decision, or its activity never started', () => {
    expect(decisionPath(history, base + 300)).toBeUndefined();
    expect(decisionPath(history.slice(0, 11), base + 250)).toBeUndefined();
  });

  it('prints medians of the paths and of the client marks', () => {
    const p = decisionPath(history, base + 250)!;
    const later = { ...p, scheduled: p.scheduled + 2, started: p.started + 2, completed: p.completed + 2 };
    const text = decisionPathText([p, later, p], { 'tool code began': [21, 22, 20] });
    expect(text).toBe(
      'ms after the decision was sent: task scheduled 3.6, started 4.8, completed 14.3; activity started 14.6 (server); tool code began 21.0',
    );
    expect(decisionPathText([], {})).toMatch(/^n\/a/);
  });
});
