// What each group of the pending section's full-queue decisions cost. Around each timed
// decision: the worker's sticky cache hits and misses, its task latencies, and the CPU of
// the bench process, the server and the worker. The groups alternate one decision at a
// time, so a meter over the whole phase would mix them; readings taken around each decision
// (outside its timed window) keep them apart. The server's latency metrics are read around
// a batch of each group's decisions apart from the timed ones: its exposition is megabytes
// (every task queue the run has used is in it), and reading and parsing it twice per
// decision cost the bench and the server enough CPU to slow the decisions next to it.
import { addCpu, cpuMeter, perUnit, type CpuSpent } from './cpu';
import { sleep } from './stats';
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
  /** The server's latency totals summed over the group's batch (`serverTimeMeter`); undefined when its endpoint did not answer. */
  server?: MetricTotals;
  /** Decisions in that batch. */
  serverDecisions: number;
  /** The worker's workflow task latency totals, likewise. */
  worker?: MetricTotals;
}

export function newTally(): GroupTally {
  return {
    decisions: 0,
    tasks: { hit: 0, miss: 0 },
    cpu: { bench: 0, server: 0 },
    server: new Map(),
    serverDecisions: 0,
    worker: new Map(),
  };
}

export interface GroupMeterSources {
  /** The worker's Prometheus endpoint (its SDK counters). */
  workerMetrics: string;
  serverPids: readonly number[];
  workerPid: number;
}

/** Runs `decide` and adds what it cost to `tally`. */
export function groupMeter(
  src: GroupMeterSources,
): (tally: GroupTally, decide: () => Promise<unknown>) => Promise<void> {
  return async (tally, decide) => {
    const workerBefore = await workerReading(src.workerMetrics);
    const spent = cpuMeter(src.serverPids, src.workerPid); // last before, first after: the readings stay outside
    await decide();
    const cpu = spent();
    const workerAfter = await workerReading(src.workerMetrics);
    tally.decisions += 1;
    addCpu(tally.cpu, cpu);
    if (workerBefore && workerAfter) {
      tally.tasks.hit += workerAfter.hit - workerBefore.hit;
      tally.tasks.miss += workerAfter.miss - workerBefore.miss;
    }
    if (tally.worker && workerBefore && workerAfter)
      addMetricDelta(tally.worker, workerBefore.latency, workerAfter.latency);
    else tally.worker = undefined; // one missed reading would leave a group's figures short
  };
}

/** How long the bench lets the server and itself get over a reading of the server's metrics before a batch. */
const AFTER_SCRAPE_MS = 1000;

/**
 * Runs a batch of `n` decisions between two readings of the server's metrics (`url`; none
 * without one) and adds what grew to `tally.server`. Untimed, and apart from the timed
 * decisions, for the reason at the top of this file.
 */
export function serverTimeMeter(
  url: string | undefined,
): (tally: GroupTally, n: number, batch: () => Promise<unknown>) => Promise<void> {
  return async (tally, n, batch) => {
    if (n === 0) return;
    const before = url ? await scrapeMetricTotals(url) : undefined;
    if (before) await sleep(AFTER_SCRAPE_MS);
    await batch();
    const after = url ? await scrapeMetricTotals(url) : undefined;
    tally.serverDecisions += n;
    if (tally.server && before && after) addMetricDelta(tally.server, before, after);
    else tally.server = undefined;
  };
}

/** CPU per decision of a group. */
export const tallyCpu = (t: GroupTally): CpuSpent => perUnit(t.cpu, t.decisions);

/** The server's (or the worker's) time per decision of a group, largest first; undefined without every reading. */
export function tallyTime(t: GroupTally, of: 'server' | 'worker'): MetricDelta[] | undefined {
  const totals = t[of];
  const n = of === 'server' ? t.serverDecisions : t.decisions;
  return totals && n > 0 ? diffMetricTotals(new Map(), totals, n) : undefined;
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

/**
 * The server-time batches' gates: the same three kinds (`fullQueueGroups`) from the gates
 * the timed groups left, which stay the gates they were.
 */
export function batchGroups<T>(filled: readonly T[], d: number): [newest: T[], evicted: T[], oldest: T[]] {
  const [newest, evicted, oldest] = fullQueueGroups(filled, d);
  return fullQueueGroups(filled.slice(oldest.length + evicted.length, filled.length - newest.length), d);
}
