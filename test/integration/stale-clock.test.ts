import { temporal } from '@temporalio/proto';
import type { History } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import type { AuditEvent } from '../../src/common/audit';
import type { GateState } from '../../src/common/gate-state';
import { getAuditQuery, getGateQuery } from '../../src/workflow/gate/messages';
import { useCrashGates } from '../support/crash-gates';
import { spawnWorker } from '../support/processes';
import { waitFor } from '../support/wait';

// A timer's firing can run with the clock of the gate's task before it: when a query task is
// handed out after the timer fired, a worker that holds no copy of the gate runs the firing
// inside the query's replay, and sends its commands with the gate's next task (see
// src/workflow/gate/deadlines.ts). Here the worker is killed shortly before each gate's first
// escalation and every gate is queried, so its successor takes the queries before the tasks.
// No event may be dated before its time, the TTL must fail closed on time, and what the
// worker did with the lagging clock must replay.

const EventType = temporal.api.enums.v1.EventType;
const MARGIN_MS = 4000;
const GATES = 12; // half with an escalate_before notice, half with a chain of two levels
const TTL = 30;
const FIRST_AT = 8; // seconds after creation: the notice (escalate_before 22) and level 1
const SECOND_AT = 11; // level 2 of the chain
const crash = useCrashGates();

/**
 * The history with the first task after a timer's firing dated at the task before it: what a
 * worker that ran the firing for a query computed with (src/workflow/gate/deadlines.ts).
 */
function withLaggingClock(h: History): History {
  const events = [...(h.events ?? [])];
  const fired = events.findIndex((e) => e.eventType === EventType.EVENT_TYPE_TIMER_FIRED);
  const started = (from: number, step: number) => {
    for (let k = from; k >= 0 && k < events.length; k += step)
      if (events[k]?.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) return k;
    throw new Error('no workflow task started around the first timer fired');
  };
  const before = events[started(fired, -1)]!;
  const after = started(fired, 1);
  events[after] = { ...events[after], eventTime: before.eventTime };
  return { ...h, events };
}

const sleepUntil = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms - Date.now())));

it('dates no event before its time and expires on time when a query runs a fired timer', async () => {
  const { dataDir, taskQueue, env } = crash.workerSetup('stale-clock');
  const first = await spawnWorker({ dataDir, taskQueue, env });
  const gates = await Promise.all(
    Array.from({ length: GATES }, async (_, i) => {
      const chain = i % 2 === 1;
      const extra = chain
        ? {
            escalation: {
              levels: [
                { after: FIRST_AT, notify: ['slack:#stale-1'] },
                { after: SECOND_AT, notify: ['slack:#stale-2'] },
              ],
            },
          }
        : { escalate_before_seconds: TTL - FIRST_AT };
      const handle = await crash.startGate(taskQueue, env, { ttl_seconds: TTL, ...extra });
      const state: GateState = await handle.query(getGateQuery); // the first worker took the first task
      return { chain, handle, created: Date.parse(state.created_at), expires: Date.parse(state.expires_at) };
    }),
  );
  // Killed before the first level, and its successor started after the second: each gate's
  // first task after the restart runs a fired timer whose next deadline has passed too.
  // Queried meanwhile, so some gates' firings run in a query first, with the lagging clock.
  const due = (g: (typeof gates)[number]) =>
    g.chain ? g.created + FIRST_AT * 1000 : g.expires - (TTL - FIRST_AT) * 1000;
  const firstDue = Math.min(...gates.map(due));
  await sleepUntil(firstDue - 4500);
  expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  await sleepUntil(firstDue - 3500);
  const answered = gates.map((g) => g.handle.query(getAuditQuery));
  await sleepUntil(Math.max(...gates.map((g) => g.created)) + (SECOND_AT + 1) * 1000);
  await spawnWorker({ dataDir, taskQueue, env });
  await Promise.all(answered);

  const ended = await waitFor(
    'every gate expired',
    async () => {
      const trails: AuditEvent[][] = await Promise.all(gates.map((g) => g.handle.query(getAuditQuery)));
      return trails.every((t) => t.some((e) => e.event_type === 'approval.expired')) ? trails : undefined;
    },
    (TTL + 30) * 1000,
  );
  const late: string[] = [];
  let floored = 0;
  gates.forEach((g, i) => {
    const at = (type: string) =>
      (ended[i] ?? []).filter((e) => e.event_type === type).map((e) => Date.parse(e.timestamp) - g.created);
    const escalated = at('approval.escalated');
    const due1 = due(g) - g.created;
    const dues = g.chain ? [due1, SECOND_AT * 1000] : [due1];
    // Each level once, none dated before its time (how late depends on how long no worker ran).
    if (escalated.length !== dues.length || escalated.some((ms, k) => ms < (dues[k] ?? Infinity)))
      late.push(`gate ${i}: escalated at ${JSON.stringify(escalated)} ms, due ${JSON.stringify(dues)}`);
    if (escalated[0] === due1) floored++; // its firing ran in a query: dated at the timer's deadline
    const expired = at('approval.expired')[0] ?? NaN;
    const ttl = g.expires - g.created;
    if (!(expired >= ttl && expired < ttl + MARGIN_MS)) late.push(`gate ${i}: expired at ${expired} ms, TTL ${ttl}`);
  });
  if (late.length > 0) throw new Error(`${late.join('\n')}\n(${floored} of ${GATES} fired in a query)`);
  // Which gates raced varies from run to run; the check below does not depend on it.
  process.stdout.write(`stale-clock: ${floored} of ${GATES} gates fired their first level in a query\n`);

  // What the worker did while its clock lagged, a replay does with the clock of the task that
  // carried it: every history replays, and no workflow task failed live.
  const histories = await Promise.all(gates.map((g) => g.handle.fetchHistory()));
  for (const h of histories)
    expect((h.events ?? []).filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)).toEqual([]);
  // And as the lagging worker saw it: the first task after the restart with the clock of the
  // task before it. Both must issue the same commands (a 1 ms timer for a passed deadline).
  const lagging = histories.map(withLaggingClock);
  const errors: string[] = [];
  for await (const r of Worker.runReplayHistories(
    { workflowBundle: { codePath: process.env.GATE_TEST_WORKFLOW_BUNDLE! } },
    [...histories, ...lagging].map((history, i) => ({ workflowId: `gate-${i}`, history })),
  ))
    if (r.error) errors.push(`${r.workflowId}: ${String(r.error)}`);
  expect(errors).toEqual([]);
}, 120_000);
