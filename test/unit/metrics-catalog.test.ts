import fs from 'node:fs';
import path from 'node:path';
import { ApiMetrics } from '../../src/api/metrics';
import { GATE_METRICS, labelValue, meterName } from '../../src/common/metrics-catalog';
import { dashboardExpressions, dashboardMetricNames } from '../support/dashboard';
import { parseExposition, sampleValue } from '../support/prometheus';

const catalog = new Set(GATE_METRICS.map((m) => m.name));
const histograms = new Set(GATE_METRICS.filter((m) => m.kind === 'histogram').map((m) => m.name));

describe('the metrics catalog and the Grafana dashboard', () => {
  it('queries only gate metrics the catalog declares (histograms by their _bucket, _sum and _count)', () => {
    const gate = dashboardMetricNames().filter((n) => n.startsWith('gate_'));
    expect(gate.length).toBeGreaterThan(10);
    const unknown = gate.filter((n) => {
      const base = n.replace(/_(bucket|sum|count)$/, '');
      return !catalog.has(n) && !(histograms.has(base) && base !== n);
    });
    expect(unknown).toEqual([]);
  });

  it('shows every catalog metric on some panel', () => {
    const queried = new Set(dashboardMetricNames().map((n) => n.replace(/_(bucket|sum|count)$/, '')));
    expect(GATE_METRICS.map((m) => m.name).filter((n) => !queried.has(n))).toEqual([]);
  });

  it('sums visibility counts with max, never sum, since every API process reports the same value', () => {
    const depth = dashboardExpressions().filter(
      (e) => e.includes('gate_queue_depth{') || e.includes('gate_queue_depth)'),
    );
    expect(depth.length).toBeGreaterThan(0);
    for (const e of depth) expect(e).toMatch(/^max/);
  });

  it('names counters for the SDK meter without the _total the exporter adds', () => {
    expect(GATE_METRICS.filter((m) => m.kind === 'counter').every((m) => m.name.endsWith('_total'))).toBe(true);
    expect(meterName(GATE_METRICS.find((m) => m.name === 'gate_requests_total')!)).toBe('gate_requests');
  });

  it('keeps caller-chosen label values short and printable', () => {
    expect(labelValue('trip.submit')).toBe('trip.submit');
    expect(labelValue('x'.repeat(65))).toBe('other');
    expect(labelValue('drop table"; --')).toBe('other');
    expect(labelValue(undefined)).toBe('none');
  });
});

describe('ApiMetrics queue depth', () => {
  it('answers a scrape storm with one set of visibility counts per TTL', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const metrics = new ApiMetrics({
      processMetrics: false,
      queueDepthTtlMs: 60_000,
      countGates: async (s) => {
        await gate;
        return s === 'requested' ? 7 : 0;
      },
    });
    const scrapes = Array.from({ length: 20 }, () => metrics.scrape());
    release();
    const bodies = await Promise.all(scrapes);
    expect(metrics.countCalls).toBe(7); // one count per status, once
    for (const b of bodies)
      expect(sampleValue(parseExposition(b.body), 'gate_queue_depth', { status: 'requested' })).toBe(7);
    await metrics.scrape();
    expect(metrics.countCalls).toBe(7); // still fresh
  });

  it('keeps the last values and counts the error when visibility is down', async () => {
    let up = true;
    const metrics = new ApiMetrics({
      processMetrics: false,
      queueDepthTtlMs: 0,
      countGates: async () => {
        if (!up) throw new Error('14 UNAVAILABLE: connection refused');
        return 3;
      },
    });
    await metrics.scrape();
    up = false;
    const s = parseExposition((await metrics.scrape()).body);
    expect(sampleValue(s, 'gate_queue_depth', { status: 'requested' })).toBe(3);
    expect(sampleValue(s, 'gate_queue_depth_errors_total')).toBe(1);
  });
});

describe('the metrics reference in docs/production.md', () => {
  it('lists every metric of the catalog', () => {
    const page = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'production.md'), 'utf8');
    expect(GATE_METRICS.map((m) => m.name).filter((n) => !page.includes(`\`${n}\``))).toEqual([]);
  });
});
