// Waiting until a worker has caught up with what was started on its queue, so that a
// measurement that follows meets gates that are idle and waiting for a decision.
import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { treeCpuMs } from './cpu';
import { sleep } from './stats';
import { progress, type BenchContext } from './context';

/** Approximate count of workflow tasks waiting on the queue; undefined when the server does not report it. */
async function backlog(client: Client, namespace: string, queue: string): Promise<number | undefined> {
  try {
    const res = await client.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: queue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      reportStats: true,
    });
    const n = res.stats?.approximateBacklogCount;
    return n === undefined || n === null ? undefined : Number(n);
  } catch {
    return undefined;
  }
}

async function hasPendingTask(client: Client, namespace: string, workflowId: string): Promise<boolean> {
  const res = await client.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId } });
  return Boolean(res.pendingWorkflowTask);
}

/**
 * Resolves once the queue's workflow backlog is empty and none of `probeIds` (the last
 * gates started) has a workflow task outstanding, twice in a row. Throws after `timeoutMs`,
 * or as soon as `check` throws.
 */
export interface SettleOptions {
  timeoutMs: number;
  onProgress?: (msg: string) => void;
  /** Throws when a process the wait depends on is gone. */
  check?: () => void;
}

export async function waitUntilSettled(
  client: Client,
  namespace: string,
  queue: string,
  probeIds: string[],
  { timeoutMs, onProgress, check }: SettleOptions,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const t0 = Date.now();
  let quiet = 0;
  let said = t0;
  while (quiet < 2) {
    check?.();
    const b = await backlog(client, namespace, queue);
    const pending = (await Promise.all(probeIds.map((id) => hasPendingTask(client, namespace, id)))).filter(
      Boolean,
    ).length;
    const state = `backlog ${b ?? 'not reported'}, ${pending}/${probeIds.length} of the newest gates with a workflow task outstanding`;
    if (Date.now() > deadline)
      throw new Error(`the worker on ${queue} did not catch up within ${timeoutMs} ms (${state})`);
    if (Date.now() - said >= 15_000) {
      said = Date.now();
      onProgress?.(`waiting ${((said - t0) / 1000).toFixed(0)} s for the worker: ${state}`);
    }
    quiet = (b ?? 0) > 0 || pending > 0 ? 0 : quiet + 1;
    await sleep(1000);
  }
}

/** The server's load when a timed phase began: how long the bench waited for it, and its last window. */
export interface ServerQuiet {
  waitedMs: number;
  /** Cores the server's process trees used over the last window; NaN for a server on another host. */
  cores: number;
  /** False when the wait timed out and the phase ran on a busy server. */
  quiet: boolean;
}

export const QUIET_SERVER_CORES = 0.25;
export const QUIET_WINDOW_MS = 2000;
/** How long `waitForQuietServer` waits at most by default. */
export const QUIET_TIMEOUT_MS = 300_000;

/**
 * Waits until the server's processes (`pids`: the dev server, or the real server and the
 * database of BENCH_SERVER_PIDS) use under QUIET_SERVER_CORES over a 2 s window, so that
 * what a bulk fill leaves behind (visibility tasks, a database's vacuum of the tables it
 * grew) is not timed as the latency of what follows. Gives up after `timeoutMs` and says
 * so in the result; returns at once for a server with no process on this host.
 */
export async function waitForQuietServer(
  pids: readonly number[],
  { timeoutMs = QUIET_TIMEOUT_MS, onProgress, check }: Partial<SettleOptions>,
): Promise<ServerQuiet> {
  const t0 = Date.now();
  let said = t0;
  for (;;) {
    check?.();
    const before = treeCpuMs(pids);
    if (Number.isNaN(before)) return { waitedMs: 0, cores: NaN, quiet: false };
    await sleep(QUIET_WINDOW_MS);
    const cores = (treeCpuMs(pids) - before) / QUIET_WINDOW_MS;
    const waitedMs = Date.now() - t0;
    if (Number.isNaN(cores)) return { waitedMs, cores, quiet: false };
    if (cores < QUIET_SERVER_CORES) return { waitedMs, cores, quiet: true };
    if (waitedMs >= timeoutMs) return { waitedMs, cores, quiet: false };
    if (Date.now() - said >= 15_000) {
      said = Date.now();
      onProgress?.(`waiting ${(waitedMs / 1000).toFixed(0)} s for the server to go quiet: ${cores.toFixed(2)} cores`);
    }
  }
}

/**
 * Waits until the server is quiet before a timed round (what the last round left behind,
 * its cancellations and their visibility writes, done) and says when that took more than
 * one window.
 */
export async function quietBeforeRound(ctx: BenchContext, what: string): Promise<void> {
  const q = await waitForQuietServer(ctx.server.pids, {
    timeoutMs: 60_000,
    onProgress: progress,
    check: () => ctx.server.check(),
  });
  if (Number.isNaN(q.cores)) return; // no server process on this host to watch
  const waited = `${(q.waitedMs / 1000).toFixed(0)} s`;
  if (!q.quiet)
    progress(`${what}: the server was still busy after ${waited} (${q.cores.toFixed(2)} cores); measuring anyway`);
  else if (q.waitedMs >= 2 * QUIET_WINDOW_MS) progress(`${what}: waited ${waited} for the server to go quiet`);
}
