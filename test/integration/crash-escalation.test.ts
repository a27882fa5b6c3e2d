import { optionalTsToMs } from '@temporalio/common/lib/time';
import type { AuditEvent } from '../../src/common/audit';
import type { GateState } from '../../src/common/gate-state';
import { getAuditQuery, getGateQuery } from '../../src/workflow/gate/messages';
import { useCrashGates } from '../support/crash-gates';
import { spawnWorker } from '../support/processes';
import { waitFor } from '../support/wait';

// The escalation chain's levels are durable timers in the gate's history: a worker process
// killed with SIGKILL between two levels (no drain, no shutdown hooks) loses none of them,
// and its successor fires each level on time.

const MARGIN_MS = 4000;
const crash = useCrashGates();

it('escalates on time after the worker process is killed between two levels', async () => {
  const { dataDir, taskQueue, env } = crash.workerSetup('crash-escalation');
  const first = await spawnWorker({ dataDir, taskQueue, env });
  const handle = await crash.startGate(taskQueue, env, {
    ttl_seconds: 40,
    notify: ['slack:#refunds-crash'],
    escalation: {
      levels: [
        { after: 15, notify: ['slack:#level-1-crash'] },
        { after: 22, notify: ['slack:#level-2-crash'] },
      ],
    },
  });
  await waitFor('the creation notice', () => crash.slack.messages.some((m) => m.posted_to === '#refunds-crash'));
  const created = Date.parse((await handle.query(getGateQuery)).created_at);
  expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  expect(Date.now() - created).toBeLessThan(15_000); // killed before level 1
  const second = await spawnWorker({ dataDir, taskQueue, env });

  const escalated = await waitFor(
    'both levels',
    async () => {
      const events = (await handle.query(getAuditQuery)).filter(
        (e: AuditEvent) => e.event_type === 'approval.escalated',
      );
      return events.length === 2 ? events : undefined;
    },
    90_000,
  ).catch(async (err: unknown) => {
    // What the gate's history and the new worker say, so a failure here can be read.
    const kinds = (await handle.fetchHistory()).events?.map((e) => e.eventType).join(',');
    throw new Error(`${String(err)}\nhistory: ${kinds}\nworker: ${second.output().slice(-3000)}`);
  });
  const after = escalated.map((e) => Date.parse(e.timestamp) - created);
  const onTime = (ms: number | undefined, at: number) => ms !== undefined && ms >= at && ms < at + MARGIN_MS;
  if (!onTime(after[0], 15_000) || !onTime(after[1], 22_000)) {
    // The events and the history's times, so such a run can be read (a level dated early was a
    // firing run by a query with the previous task's clock: see stale-clock.test.ts).
    const events = (await handle.fetchHistory()).events ?? [];
    const t = (e: (typeof events)[number]) => (optionalTsToMs(e.eventTime) ?? NaN) - created;
    // The state as the second worker has it: a created_at other than the first worker's points at the replay.
    const replayed = (await handle.query(getGateQuery)).created_at;
    throw new Error(
      `levels not on time: after ${JSON.stringify(after)} ms (created_at ${new Date(created).toISOString()}, ` +
        `${replayed} on the second worker)\n` +
        `events: ${JSON.stringify(escalated.map((e) => ({ at: e.timestamp, data: e.data })))}\n` +
        `history (ms after created_at): ${events.map((e) => `${e.eventId}:${e.eventType}@${t(e)}`).join(', ')}`,
    );
  }
  await waitFor('the level messages', () =>
    ['#level-1-crash', '#level-2-crash'].every(
      (c) => crash.slack.messages.filter((m) => m.posted_to === c).length === 1,
    ),
  );
  const state: GateState = await handle.query(getGateQuery);
  expect(state.escalation).toEqual({ fired: 2, level: 2, loop: 0 });
  await handle.terminate('test done');
}, 180_000);
