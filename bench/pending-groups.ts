// What each group of the pending section's full-queue decisions cost, read around each
// decision: the worker's sticky cache hits and misses, the CPU of the bench process, the
// server and the worker, and the server's latency metrics. The groups alternate one
// decision at a time, so a meter over the whole phase would mix them; readings taken
// around each decision (outside its timed window) keep them apart.
import { addCpu, cpuMeter, perUnit, type CpuSpent } from './cpu';
import {
  addMetricDelta,
  diffMetricTotals,
  scrapeMetricTotals,
  workerReading,
  type MetricDelta,
  type MetricTotals,
} from './server-metrics';

/** The pending section's timed groups: before the fill, then the three with the queue full. */
export const GROUPS = ['idle', 'newest', 'evicted', 'oldest'] as const;
export type Group = (typeof GROUPS)[number];
/** The groups approved with the queue full, in the order each round approves them. */
export const FULL_GROUPS = ['newest', 'evicted', 'oldest'] as const satisfies readonly Group[];

/** One fresh value per group. */
export function perGroup<T>(make: () => T): Record<Group, T> {
  return Object.fromEntries(GROUPS.map((g) => [g, make()])) as Record<Group, T>;
}

export interface GroupTally {
  decisions: number;
  /** Workflow tasks that found (hit) or did not find (miss) their gate in the worker's cache. */
  tasks: { hit: number; miss: number };
  /** CPU summed over the group's decisions. */
  cpu: CpuSpent;
  /** The server's latency totals summed over the group's decisions; undefined when its endpoint did not answer. */
  server?: MetricTotals;
  /** The worker's workflow task latency totals, likewise. */
  worker?: MetricTotals;
}

export function newTally(): GroupTally {
  return {
    decisions: 0,
    tasks: { hit: 0, miss: 0 },
    cpu: { bench: 0, server: 0 },
    server: new Map(),
    worker: new Map(),
  };
}

export interface GroupMeterSources {
  /** The worker's Prometheus endpoint (its SDK counters). */
  workerMetrics: string;
  /** The server's Prometheus endpoint, when it has one. */
  serverMetrics?: string;
  serverPids: readonly number[];
  workerPid: number;
}

/** Runs `decide` and adds what it cost to `tally`. */
export function groupMeter(
  src: GroupMeterSources,
): (tally: GroupTally, decide: () => Promise<unknown>) => Promise<void> {
  return async (tally, decide) => {
    const workerBefore = await workerReading(src.workerMetrics);
    const serverBefore = src.serverMetrics ? await scrapeMetricTotals(src.serverMetrics) : undefined;
    const spent = cpuMeter(src.serverPids, src.workerPid); // last before, first after: the scrapes stay outside
    await decide();
    const cpu = spent();
    const serverAfter = src.serverMetrics ? await scrapeMetricTotals(src.serverMetrics) : undefined;
    const workerAfter = await workerReading(src.workerMetrics);
    tally.decisions += 1;
    addCpu(tally.cpu, cpu);
    if (workerBefore && workerAfter) {
      tally.tasks.hit += workerAfter.hit - workerBefore.hit;
      tally.tasks.miss += workerAfter.miss - workerBefore.miss;
    }
    if (tally.worker && workerBefore && workerAfter)
      addMetricDelta(tally.worker, workerBefore.latency, workerAfter.latency);
    else tally.worker = undefined;
    if (tally.server && serverBefore && serverAfter) addMetricDelta(tally.server, serverBefore, serverAfter);
    else tally.server = undefined; // one missed reading would leave a group's figures short
  };
}

/** CPU per decision of a group. */
export const tallyCpu = (t: GroupTally): CpuSpent => perUnit(t.cpu, t.decisions);

/** The server's (or the worker's) time per decision of a group, largest first; undefined without every reading. */
export function tallyTime(t: GroupTally, of: 'server' | 'worker'): MetricDelta[] | undefined {
  const totals = t[of];
  return totals && t.decisions > 0 ? diffMetricTotals(new Map(), totals, t.decisions) : undefined;
}

/**
 * The full queue's timed groups, `d` gates each where the queue has room: the newest,
 * then the oldest, then the next oldest (evicted); no gate is in two groups.
 */
export function fullQueueGroups<T>(filled: readonly T[], d: number): [newest: T[], evicted: T[], oldest: T[]] {
  const newest = d > 0 ? filled.slice(-d) : [];
  const rest = filled.length - newest.length;
  const oldest = filled.slice(0, Math.min(d, rest));
  const evicted = filled.slice(oldest.length, Math.min(oldest.length + d, rest));
  return [newest, evicted, oldest];
}
