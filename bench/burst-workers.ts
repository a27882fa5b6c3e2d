// The burst section's gate workers, as processes of their own (`gate worker`): one as
// `gate dev` runs it, two as `gate stack` does; and the rate at which they run the gates'
// first workflow tasks with nothing else happening.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { readBacklog } from '../src/client/backlog-admission';
import { cpuMeter, treeCpuMs } from './cpu';
import { startBenchApi } from './api';
import { burstCreates } from './burst-agents';
import { dataDir, gateEnv, progress, taskQueue, type BenchContext } from './context';
import { waitUntilSettled } from './settle';
import { runConcurrent } from './stats';
import { spawnWorkerProcess, type WorkerProcess } from './worker-process';

export interface BurstWorkers {
  queue: string;
  /** The worker processes' pids, for their CPU. */
  pids: number[];
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
    pids: procs.map((p) => p.pid),
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

/** CPU ms per gate, by where it was spent (NaN for a server with no process on this host). */
export interface GateCpu {
  /** The server's processes (with the database's under BENCH_SERVER_PIDS). */
  server: number;
  /** The bench process: the API and the agents' HTTP clients. */
  api: number;
  /** The gate worker processes. */
  workers: number;
}

export const totalCpu = (c: GateCpu): number => c.server + c.api + c.workers;

/** What the workers alone did, and what each part cost in CPU. */
export interface FirstTaskRate {
  /** First tasks a second. */
  rate: number;
  /** CPU per create while no worker polled (`workers` 0). */
  createCpu: GateCpu;
  /** CPU per first task while the workers ran alone (`api` 0: nothing else ran). */
  taskCpu: GateCpu;
}

/**
 * The workers' first-task rate with nothing else happening: `n` gates created over HTTP on
 * a queue no worker polls yet, then `count` worker processes started on it; the rate is
 * `n` over the time from the first of those tasks started to the last completed, from the
 * server's own timestamps. The gates are terminated afterwards, the workers stopped. The
 * CPU of each part is read too, so that a ratio can be set against what the cores allow.
 */
export async function firstTaskRate(ctx: BenchContext, count: number, n: number): Promise<FirstTaskRate> {
  const queue = taskQueue('burst-rate');
  const env = gateEnv(ctx, dataDir(ctx, 'burst-rate'), queue, { GATE_MAX_BACKLOG_S: '0' });
  const api = await startBenchApi(env);
  let ids: string[];
  let createCpu: GateCpu;
  try {
    const meter = cpuMeter(ctx.server.pids);
    const made = await burstCreates(api, 'rate', n, ctx.cfg.burstC, 0);
    const spent = meter();
    createCpu = { server: spent.server / n, api: spent.bench / n, workers: 0 };
    if (made.lost.length > 0) throw new Error(`${made.lost.length} creates failed: ${made.lost[0]!.why}`);
    ids = made.accepted.map((a) => a.id);
  } finally {
    await api.close();
  }
  progress(`burst: ${n} gates waiting; starting ${count} worker process(es) on them`);
  const procs: WorkerProcess[] = [];
  let taskCpu: GateCpu;
  try {
    // The server's CPU from before the first worker; each worker's from when it was ready (its start-up is no task's).
    const s0 = treeCpuMs(ctx.server.pids);
    const w0: number[] = [];
    for (let i = 0; i < count; i++) {
      procs.push(await spawnWorkerProcess(env));
      w0.push(treeCpuMs([procs[i]!.pid]));
    }
    await waitUntilSettled(ctx.client, ctx.cfg.namespace, queue, ids.slice(-20), {
      timeoutMs: Math.max(120_000, n * 200),
      onProgress: progress,
      check: () => ctx.server.check(),
    });
    const workersMs = procs.reduce((sum, p, i) => sum + treeCpuMs([p.pid]) - w0[i]!, 0);
    taskCpu = { server: (treeCpuMs(ctx.server.pids) - s0) / n, api: 0, workers: workersMs / n };
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
  return { rate: (n * 1000) / (last - first), createCpu, taskCpu };
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
