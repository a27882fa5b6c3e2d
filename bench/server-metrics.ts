// Where a Temporal server spends a phase's time, from its Prometheus endpoint: the sums and
// counts of its latency histograms (per operation) read before and after the phase. The CPU
// meters say whether a slower decision cost the server more; this says on what: persistence
// calls, the mutable-state cache, the RPC handlers, queue tasks.

/** The histogram families read, by the label that names what was timed. */
const FAMILIES: Record<string, string> = {
  service_latency: 'operation',
  persistence_latency: 'operation',
  cache_latency: 'operation',
  task_latency_processing: 'task_type',
  task_latency_queue: 'task_type',
};

/** Long polls: their time is waiting for work, not doing it. */
const IGNORED = /^Poll/;

/** `family service:operation` -> seconds summed and observations, over every other label. */
export type MetricTotals = Map<string, { sum: number; count: number }>;

const LINE = /^([a-z_]+)_(sum|count)\{([^}]*)\}\s+(\S+)$/;

function label(labels: string, name: string): string {
  const m = new RegExp(`(?:^|,)${name}="([^"]*)"`).exec(labels);
  return m?.[1] ?? '?';
}

/** Totals of the families above from Prometheus text exposition; lines of other families are ignored. */
export function parseMetricTotals(text: string): MetricTotals {
  const totals: MetricTotals = new Map();
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const [, family, kind, labels, raw] = m as unknown as [string, string, 'sum' | 'count', string, string];
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

/**
 * A meter over one phase: call it before, call what it returns after with the phase's units.
 * Without a URL, or when the endpoint does not answer, the result is undefined.
 */
export async function serverMetricsMeter(
  url: string | undefined,
): Promise<(units: number) => Promise<MetricDelta[] | undefined>> {
  const before = url ? await scrapeMetricTotals(url) : undefined;
  return async (units) => {
    if (!before) return undefined; // no URL, or no answer before the phase
    const after = await scrapeMetricTotals(url!);
    return after ? diffMetricTotals(before, after, units) : undefined;
  };
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

/** The gate worker's sticky cache hits and misses (the SDK's counters) so far; undefined when its endpoint does not answer. */
export async function stickyCacheCounts(url: string): Promise<{ hit: number; miss: number } | undefined> {
  const text = await metricsText(url);
  if (text === undefined) return undefined;
  return {
    hit: counterTotal(text, 'temporal_sticky_cache_hit'),
    miss: counterTotal(text, 'temporal_sticky_cache_miss'),
  };
}
