/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  /** The metric family it belongs to (`x` for `x_bucket`, `x_sum`, `x_count` of histogram `x`). */
  family: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text format (enough of it for tests: no escaped quotes in label values). */
export function parseExposition(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)) labels[l[1]!] = l[2]!;
    const name = m[1]!;
    const base = name.replace(/_(bucket|sum|count)$/, '');
    const family = types.has(name) ? name : types.get(base) === 'histogram' ? base : name;
    samples.push({ name, family, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the sample `name` whose labels include `labels` (summed over the other labels); undefined if none. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const hits = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return hits.length === 0 ? undefined : hits.reduce((sum, s) => sum + s.value, 0);
}
