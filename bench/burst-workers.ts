// The burst section's gate workers, as processes of their own (`gate worker`): one as
// `gate dev` runs it, two as `gate stack` does; and the rate at which they run the gates'
// first workflow tasks with nothing else happening.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { readBacklog } from '../src/client/backlog-admission';
import { startBenchApi } from './api';
import { burstCreates } from './burst-agents';
import { dataDir, gateEnv, progress, taskQueue, type BenchContext } from './context';
import { waitUntilSettled } from './settle';
import { runConcurrent } from './stats';
import { spawnWorkerProcess, type WorkerProcess } from './worker-process';

export interface BurstWorkers {
  queue: string;
  env: NodeJS.ProcessEnv;
  /** Throws when the server or a worker process is gone. */
  check(): void;
  stop(): Promise<void>;
}

/** `count` worker processes on a new task queue, sharing one data dir (the API's too). */
export async function startBurstWorkers(ctx: BenchContext, part: string, count: number): Promise<BurstWorkers> {
  const queue = taskQueue(part);
  const env = gateEnv(ctx, dataDir(ctx, part), queue);
  const procs: WorkerProcess[] = [];
  try {
    for (let i = 0; i < count; i++) procs.push(await spawnWorkerProcess(env));
  } catch (err) {
    await Promise.all(procs.map((p) => p.stop()));
    throw err;
  }
  return {
    queue,
    env,
    check() {
      ctx.server.check();
      const dead = procs.find((p) => p.exited());
      if (dead) throw new Error(`a gate worker process (pid ${dead.pid}) exited:\n${dead.output()}`);
    },
    stop: async () => void (await Promise.all(procs.map((p) => p.stop()))),
  };
}

/** Server time of an event, epoch ms. */
function eventMs(e: temporal.api.history.v1.IHistoryEvent): number {
  return Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);
}

/**
 * The workers' first-task rate with nothing else happening: `n` gates created over HTTP on
 * a queue no worker polls yet, then `count` worker processes started on it; the rate is
 * `n` over the time from the first of those tasks started to the last completed, from the
 * server's own timestamps. The gates are terminated afterwards, the workers stopped.
 */
export async function firstTaskRate(ctx: BenchContext, count: number, n: number): Promise<number> {
  const queue = taskQueue('burst-rate');
  const env = gateEnv(ctx, dataDir(ctx, 'burst-rate'), queue, { GATE_MAX_BACKLOG_S: '0' });
  const api = await startBenchApi(env);
  let ids: string[];
  try {
    const made = await burstCreates(api, 'rate', n, ctx.cfg.burstC, 0);
    if (made.lost.length > 0) throw new Error(`${made.lost.length} creates failed: ${made.lost[0]!.why}`);
    ids = made.accepted.map((a) => a.id);
  } finally {
    await api.close();
  }
  progress(`burst: ${n} gates waiting; starting ${count} worker process(es) on them`);
  const procs: WorkerProcess[] = [];
  try {
    for (let i = 0; i < count; i++) procs.push(await spawnWorkerProcess(env));
    await waitUntilSettled(ctx.client, ctx.cfg.namespace, queue, ids.slice(-20), {
      timeoutMs: Math.max(120_000, n * 200),
      onProgress: progress,
      check: () => ctx.server.check(),
    });
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
  let first = Infinity;
  let last = 0;
  await runConcurrent(ids.length, 16, async (i) => {
    const { events = [] } = await ctx.client.workflow.getHandle(ids[i]!).fetchHistory();
    const started = events?.find((e) => e.workflowTaskStartedEventAttributes);
    const done = events?.find((e) => e.workflowTaskCompletedEventAttributes);
    if (!started || !done) throw new Error(`${ids[i]}: no first workflow task after the queue settled`);
    first = Math.min(first, eventMs(started));
    last = Math.max(last, eventMs(done));
  });
  await terminateAll(ctx.client, ids);
  return (n * 1000) / (last - first);
}

/** Terminates `ids` (untimed cleanup, no worker involved). */
export async function terminateAll(client: Client, ids: string[]): Promise<void> {
  await runConcurrent(ids.length, 16, async (i) => {
    await client.workflow
      .getHandle(ids[i]!)
      .terminate('bench cleanup')
      .catch(() => undefined);
  });
}

/** The workflow backlog of `queue` as the server reports it: age of the oldest task in seconds, and count. */
export async function backlogOf(
  client: Client,
  namespace: string,
  queue: string,
): Promise<{ ageS: number; count: number; dispatchRate: number }> {
  return readBacklog(client, namespace, queue);
}
