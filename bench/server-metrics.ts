// Where a Temporal server (and a gate worker's SDK) spends a phase's time, from its Prometheus
// endpoint: the sums and counts of its latency histograms (per operation) read before and
// after the phase, or around each of its parts and added up. The CPU meters say whether a
// slower decision cost the server more; this says on what: persistence calls, the
// mutable-state cache, the RPC handlers, queue tasks, the worker's task execution.

/**
 * The histogram families read, by the label that names what was timed: the server's, and
 * the SDK's workflow task latencies of a worker (in seconds, as the gate's workers export them).
 */
const FAMILIES: Record<string, string> = {
  service_latency: 'operation',
  persistence_latency: 'operation',
  cache_latency: 'operation',
  task_latency_processing: 'task_type',
  task_latency_queue: 'task_type',
  temporal_workflow_task_schedule_to_start_latency: 'task_queue',
  temporal_workflow_task_execution_latency: 'workflow_type',
  temporal_workflow_task_replay_latency: 'workflow_type',
};

/** Long polls: their time is waiting for work, not doing it. */
const IGNORED = /^Poll/;

/** `family service:operation` -> seconds summed and observations, over every other label. */
export type MetricTotals = Map<string, { sum: number; count: number }>;

const LINE = /^([a-z_]+)_(sum|count)\{([^}]*)\}\s+(\S+)$/;

/** One pattern per label name, built once: every line of every reading is matched with them. */
const LABEL_PATTERNS = new Map<string, RegExp>();

function label(labels: string, name: string): string {
  let re = LABEL_PATTERNS.get(name);
  if (!re) LABEL_PATTERNS.set(name, (re = new RegExp(`(?:^|,)${name}="([^"]*)"`)));
  return re.exec(labels)?.[1] ?? '?';
}

/** Totals of the families above from Prometheus text exposition; lines of other families are ignored. */
export function parseMetricTotals(text: string): MetricTotals {
  const totals: MetricTotals = new Map();
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const [, named, kind, labels, raw] = m as unknown as [string, string, 'sum' | 'count', string, string];
    const family = named.replace(/_seconds$/, '');
    const by = FAMILIES[family];
    const value = Number(raw);
    if (!by || !Number.isFinite(value)) continue;
    const what = label(labels, by);
    if (IGNORED.test(what)) continue;
    const key = `${family} ${label(labels, 'service_name')}:${what}`;
    const t = totals.get(key) ?? { sum: 0, count: 0 };
    t[kind] += value;
    totals.set(key, t);
  }
  return totals;
}

export interface MetricDelta {
  key: string;
  /** ms per unit (per decision, say) spent in this operation during the phase. */
  msPerUnit: number;
  /** Observations per unit. */
  callsPerUnit: number;
}

/** What grew between two readings, per unit, largest time first; the `top` biggest. */
export function diffMetricTotals(before: MetricTotals, after: MetricTotals, units: number, top = 8): MetricDelta[] {
  const out: MetricDelta[] = [];
  for (const [key, a] of after) {
    const b = before.get(key) ?? { sum: 0, count: 0 };
    const count = a.count - b.count;
    if (count <= 0) continue;
    out.push({ key, msPerUnit: ((a.sum - b.sum) * 1000) / units, callsPerUnit: count / units });
  }
  return out.sort((x, y) => y.msPerUnit - x.msPerUnit).slice(0, top);
}

/** Adds what grew between two readings to `acc` (a running total over several windows). */
export function addMetricDelta(acc: MetricTotals, before: MetricTotals, after: MetricTotals): void {
  for (const [key, a] of after) {
    const b = before.get(key) ?? { sum: 0, count: 0 };
    const t = acc.get(key) ?? { sum: 0, count: 0 };
    t.sum += a.sum - b.sum;
    t.count += a.count - b.count;
    acc.set(key, t);
  }
}

export function formatMetricDeltas(deltas: MetricDelta[]): string {
  if (deltas.length === 0) return 'nothing recorded';
  return deltas.map((d) => `${d.key} ${d.msPerUnit.toFixed(2)} ms (${d.callsPerUnit.toFixed(1)} calls)`).join('; ');
}

/** A Prometheus endpoint's text; undefined when it does not answer (within 5 s) or answers an error. */
async function metricsText(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return res.ok ? await res.text() : undefined;
  } catch {
    return undefined;
  }
}

/** The server's latency totals (`parseMetricTotals`); undefined when the endpoint does not answer. */
export async function scrapeMetricTotals(url: string): Promise<MetricTotals | undefined> {
  const text = await metricsText(url);
  return text === undefined ? undefined : parseMetricTotals(text);
}

/** A counter's value summed over its label sets (`name` or `name_total`); 0 when absent. */
export function counterTotal(text: string, name: string): number {
  let total = 0;
  const re = new RegExp(`^${name}(?:_total)?(?:\\{[^}]*\\})?\\s+(\\S+)$`, 'gm');
  for (const m of text.matchAll(re)) {
    const v = Number(m[1]);
    if (Number.isFinite(v)) total += v;
  }
  return total;
}

export interface WorkerReading {
  /** The SDK's sticky cache counters so far. */
  hit: number;
  miss: number;
  /** Its workflow task latency totals (`parseMetricTotals`). */
  latency: MetricTotals;
}

/** A gate worker's sticky cache hits and misses and its task latencies so far; undefined when its endpoint does not answer. */
export async function workerReading(url: string): Promise<WorkerReading | undefined> {
  const text = await metricsText(url);
  if (text === undefined) return undefined;
  return {
    hit: counterTotal(text, 'temporal_sticky_cache_hit'),
    miss: counterTotal(text, 'temporal_sticky_cache_miss'),
    latency: parseMetricTotals(text),
  };
}
