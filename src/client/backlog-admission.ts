import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { GateError } from './gate-error';

/** One reading of the gate task queue's workflow backlog, as the server reported it. */
export interface BacklogReading {
  /** Seconds the oldest task in the backlog has waited for a worker (0: no backlog). */
  ageS: number;
  /** Tasks in the backlog (approximate, as the server counts them). */
  count: number;
  /** Tasks a second the queue handed to workers, averaged by the server over the last 30 s (0: none). */
  dispatchRate: number;
  /** When the reading was taken (epoch ms, this process's clock). */
  atMs: number;
}

export interface BacklogAdmissionOptions {
  /** The gate task queue. */
  taskQueue: string;
  /** Temporal namespace; the client's own when absent. */
  namespace?: string;
  /** Creates are shed while the oldest waiting task is older than this (GATE_MAX_BACKLOG_S); 0: never shed. */
  maxBacklogS: number;
  /** Reads the backlog at most this often while creates arrive (default 500 ms). */
  refreshMs?: number;
  /** A reading older than this is not acted on: after a quiet spell the first creates are admitted (default 5 s). */
  staleMs?: number;
}

/** Longest Retry-After a shed create is given, so that a client never waits long for a queue that drains fast. */
export const MAX_RETRY_AFTER_S = 30;

/**
 * How long a task added now would wait for a worker, in seconds: the backlog's depth over
 * the rate the workers take tasks at, but never more than the oldest task's age. The age
 * alone overstates it when a few tasks straggle in a partition the workers' polls seldom
 * reach (a backlog of 9 tasks 18.7 s old, measured, with the workers keeping up); the
 * depth alone when the rate is still rising after a quiet spell (it is averaged over 30 s).
 * With no dispatch at all (no worker), the age.
 */
export function behindS(r: Pick<BacklogReading, 'ageS' | 'count' | 'dispatchRate'>): number {
  if (r.count === 0) return 0;
  return r.dispatchRate > 0 ? Math.min(r.ageS, r.count / r.dispatchRate) : r.ageS;
}

/**
 * Whether a create arriving at `nowMs` is shed, and for how long: undefined to admit it,
 * else the Retry-After in whole seconds (at least 1, about the time the backlog needs to
 * fall back under the bound, at most MAX_RETRY_AFTER_S). No reading, or one older than
 * `staleMs`, admits: shedding acts only on what the server said recently.
 */
export function shedVerdict(
  reading: BacklogReading | undefined,
  nowMs: number,
  o: { maxBacklogS: number; staleMs: number },
): number | undefined {
  if (!reading || o.maxBacklogS <= 0 || nowMs - reading.atMs > o.staleMs) return undefined;
  const behind = behindS(reading);
  if (behind <= o.maxBacklogS) return undefined;
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(behind - o.maxBacklogS)));
}

/**
 * Admission control for creates: sheds them while the gate workers are behind, measured
 * by how long a new gate's first task would wait on the gate task queue (`behindS`, from
 * the server's `DescribeTaskQueue` statistics). A create the workers would only get to later is told to
 * come back (503 `gate_busy`, Retry-After), before anything is started: it has an
 * idempotency key, so the retry is safe, while a backlog left to grow makes every gate
 * wait longer for its first task, and with it every decision on a new gate.
 *
 * `check` never waits for Temporal: it acts on the last reading and, when that is older
 * than `refreshMs`, starts one read in the background. The server caches the statistics
 * too (`matching.TaskQueueInfoByBuildIdTTL`, 5 s by default, 1 s in this project's
 * servers, see src/dev/temporal-cli.ts), so a reading is that much older than it looks.
 */
export class BacklogAdmission {
  private reading: BacklogReading | undefined;
  private reading$: Promise<void> | undefined;
  private readAtMs = 0;
  private readonly refreshMs: number;
  private readonly staleMs: number;
  /** The longest wait (`behindS`) read so far, for the bench and the logs. */
  peakBehindS = 0;

  constructor(
    private readonly client: Client,
    private readonly options: BacklogAdmissionOptions,
  ) {
    this.refreshMs = options.refreshMs ?? 500;
    this.staleMs = options.staleMs ?? 5000;
  }

  /** The last reading, if any. */
  get last(): BacklogReading | undefined {
    return this.reading;
  }

  /** Throws 503 `gate_busy` (details: `retry_after_s`, `backlog_age_s`, `max_backlog_s`) when creates are shed now. */
  check(nowMs: number = Date.now()): void {
    if (this.options.maxBacklogS <= 0) return;
    if (nowMs - this.readAtMs >= this.refreshMs) void this.refresh();
    const retryAfter = shedVerdict(this.reading, nowMs, {
      maxBacklogS: this.options.maxBacklogS,
      staleMs: this.staleMs,
    });
    if (retryAfter === undefined) return;
    // Rounded up: a shed create never reports a backlog at or under the bound it exceeded.
    const behind = Math.ceil(behindS(this.reading!) * 10) / 10;
    throw new GateError(
      503,
      'gate_busy',
      `the gate workers are behind: a new gate would wait about ${behind} s for its first task (bound ${this.options.maxBacklogS} s, GATE_MAX_BACKLOG_S); nothing was started: retry after ${retryAfter} s with the same Idempotency-Key`,
      {
        retry_after_s: retryAfter,
        backlog_s: behind,
        backlog_tasks: this.reading!.count,
        max_backlog_s: this.options.maxBacklogS,
      },
    );
  }

  /** Reads the backlog now (one read at a time); a failed read keeps the last reading, which goes stale. */
  refresh(): Promise<void> {
    this.readAtMs = Date.now();
    this.reading$ ??= this.read()
      .then((r) => {
        this.reading = r;
        this.peakBehindS = Math.max(this.peakBehindS, behindS(r));
      })
      .catch(() => undefined) // Temporal unreachable: the start itself will say so
      .finally(() => (this.reading$ = undefined));
    return this.reading$;
  }

  private read(): Promise<BacklogReading> {
    return readBacklog(this.client, this.options.namespace ?? this.client.options.namespace, this.options.taskQueue);
  }
}

/** The workflow backlog of a task queue as the server reports it (its normal queue: new gates' first tasks). */
export async function readBacklog(client: Client, namespace: string, taskQueue: string): Promise<BacklogReading> {
  const res = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    reportStats: true,
  });
  const age = res.stats?.approximateBacklogAge;
  return {
    ageS: age ? Number(age.seconds ?? 0) + (age.nanos ?? 0) / 1e9 : 0,
    count: Number(res.stats?.approximateBacklogCount ?? 0),
    dispatchRate: Number(res.stats?.tasksDispatchRate ?? 0),
    atMs: Date.now(),
  };
}
