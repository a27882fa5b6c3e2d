import { loadBenchConfig } from '../../bench/config';
import { counterTotal, diffMetricTotals, formatMetricDeltas, parseMetricTotals } from '../../bench/server-metrics';

const NS = 'namespace="default"';

function exposition(updateSum: number, updateCount: number, pollSum: number): string {
  return [
    '# HELP persistence_latency Persistence latency',
    '# TYPE persistence_latency histogram',
    `persistence_latency_bucket{${NS},operation="UpdateWorkflowExecution",service_name="history",le="0.01"} ${updateCount}`,
    `persistence_latency_sum{${NS},operation="UpdateWorkflowExecution",service_name="history"} ${updateSum}`,
    `persistence_latency_count{${NS},operation="UpdateWorkflowExecution",service_name="history"} ${updateCount}`,
    // the same operation under a second label set adds to the same total
    `persistence_latency_sum{namespace="other",operation="UpdateWorkflowExecution",service_name="history"} 1`,
    `persistence_latency_count{namespace="other",operation="UpdateWorkflowExecution",service_name="history"} 10`,
    `service_latency_sum{operation="PollWorkflowTaskQueue",service_name="frontend"} ${pollSum}`,
    `service_latency_count{operation="PollWorkflowTaskQueue",service_name="frontend"} 3`,
    `service_latency_sum{operation="UpdateWorkflowExecution",service_name="frontend"} ${updateSum * 4}`,
    `service_latency_count{operation="UpdateWorkflowExecution",service_name="frontend"} ${updateCount}`,
    'memory_heap 12345',
    `task_latency_processing_sum{task_type="VisibilityTaskUpsertExecution"} NaN`,
  ].join('\n');
}

describe('server metrics (bench/server-metrics.ts)', () => {
  it('sums each operation over its other labels, keyed by service, and skips long polls and other families', () => {
    const t = parseMetricTotals(exposition(0.5, 100, 60));
    expect(t.get('persistence_latency history:UpdateWorkflowExecution')).toEqual({ sum: 1.5, count: 110 });
    expect(t.get('service_latency frontend:UpdateWorkflowExecution')).toEqual({ sum: 2, count: 100 });
    expect([...t.keys()].some((k) => k.includes('Poll'))).toBe(false);
    expect([...t.keys()].some((k) => k.startsWith('memory'))).toBe(false);
    expect(t.has('task_latency_processing ?:VisibilityTaskUpsertExecution')).toBe(false); // NaN ignored
  });

  it('gives ms and calls per unit for what grew, largest first', () => {
    const before = parseMetricTotals(exposition(0.5, 100, 60));
    const after = parseMetricTotals(exposition(0.9, 120, 600));
    const d = diffMetricTotals(before, after, 20);
    expect(d.map((x) => x.key)).toEqual([
      'service_latency frontend:UpdateWorkflowExecution',
      'persistence_latency history:UpdateWorkflowExecution',
    ]);
    expect(d[0]!.msPerUnit).toBeCloseTo(80); // (3.6 - 2) s over 20
    expect(d[1]!.msPerUnit).toBeCloseTo(20);
    expect(d[1]!.callsPerUnit).toBeCloseTo(1);
    expect(formatMetricDeltas(d)).toContain('persistence_latency history:UpdateWorkflowExecution 20.00 ms (1.0 calls)');
    expect(formatMetricDeltas([])).toBe('nothing recorded');
  });

  it('keeps the top entries only', () => {
    const lines = Array.from({ length: 12 }, (_, i) => [
      `cache_latency_sum{operation="op${i}",service_name="history"} ${i + 1}`,
      `cache_latency_count{operation="op${i}",service_name="history"} 1`,
    ]).flat();
    const d = diffMetricTotals(new Map(), parseMetricTotals(lines.join('\n')), 1, 3);
    expect(d.map((x) => x.key)).toEqual([
      'cache_latency history:op11',
      'cache_latency history:op10',
      'cache_latency history:op9',
    ]);
  });
});

describe('BENCH_SERVER_METRICS', () => {
  it("defaults to gate stack's endpoint (frontend port + 9) for a server on this host, and to none otherwise", () => {
    expect(loadBenchConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7633' }).serverMetrics).toBe('http://127.0.0.1:7642/metrics');
    expect(loadBenchConfig({ TEMPORAL_ADDRESS: 'localhost:7233' }).serverMetrics).toBe('http://127.0.0.1:7242/metrics');
    expect(loadBenchConfig({ TEMPORAL_ADDRESS: 'temporal.prod:7233' }).serverMetrics).toBeUndefined();
    expect(loadBenchConfig({}).serverMetrics).toBeUndefined();
  });

  it('takes an explicit URL, and an empty value turns it off', () => {
    const url = 'http://10.0.0.5:9090/metrics';
    expect(loadBenchConfig({ TEMPORAL_ADDRESS: 'temporal.prod:7233', BENCH_SERVER_METRICS: url }).serverMetrics).toBe(
      url,
    );
    expect(
      loadBenchConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7633', BENCH_SERVER_METRICS: '' }).serverMetrics,
    ).toBeUndefined();
  });
});

describe('counterTotal', () => {
  it("sums a counter over its label sets, with or without Prometheus's _total suffix", () => {
    const text = [
      '# TYPE temporal_sticky_cache_hit_total counter',
      'temporal_sticky_cache_hit_total{namespace="default",task_queue="q1"} 7',
      'temporal_sticky_cache_hit_total{namespace="default",task_queue="q2"} 5',
      'temporal_sticky_cache_hit_ratio 0.5',
      'temporal_sticky_cache_miss 3',
    ].join('\n');
    expect(counterTotal(text, 'temporal_sticky_cache_hit')).toBe(12);
    expect(counterTotal(text, 'temporal_sticky_cache_miss')).toBe(3);
    expect(counterTotal(text, 'temporal_sticky_cache_forced_eviction')).toBe(0);
  });
});
