import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { addCpu, type CpuSpent } from '../cpu';
import {
  batchGroups,
  fullQueueGroups,
  groupMeter,
  newTally,
  serverTimeMeter,
  tallyCpu,
  tallyTime,
} from '../pending-groups';
import { devServerArgs } from '../../src/dev/temporal-cli';
import { loadBenchConfig } from '../config';
import {
  addMetricDelta,
  counterTotal,
  diffMetricTotals,
  formatMetricDeltas,
  parseMetricTotals,
} from '../server-metrics';

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

  it('sums the growth of separate windows, leaving out what happened between them', () => {
    const acc = new Map();
    // window 1: 0.5 -> 0.9 s over 100 -> 120 calls; between the windows 0.9 -> 2.0 (not counted); window 2: 2.0 -> 2.1
    addMetricDelta(acc, parseMetricTotals(exposition(0.5, 100, 60)), parseMetricTotals(exposition(0.9, 120, 60)));
    addMetricDelta(acc, parseMetricTotals(exposition(2.0, 300, 60)), parseMetricTotals(exposition(2.1, 310, 60)));
    const d = diffMetricTotals(new Map(), acc, 2);
    const persistence = d.find((x) => x.key === 'persistence_latency history:UpdateWorkflowExecution')!;
    expect(persistence.msPerUnit).toBeCloseTo(250); // (0.4 + 0.1) s over 2
    expect(persistence.callsPerUnit).toBeCloseTo(15); // (20 + 10) over 2
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

  it("takes an explicit URL, and an empty value turns it off (the dev server's own endpoint too)", () => {
    const url = 'http://10.0.0.5:9090/metrics';
    expect(loadBenchConfig({ TEMPORAL_ADDRESS: 'temporal.prod:7233', BENCH_SERVER_METRICS: url }).serverMetrics).toBe(
      url,
    );
    expect(loadBenchConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7633', BENCH_SERVER_METRICS: '' }).serverMetrics).toBe('off');
    expect(loadBenchConfig({ BENCH_SERVER_METRICS: '' }).serverMetrics).toBe('off');
  });

  it('gives the dev server the metrics port it is asked for, and none of its own choosing otherwise', () => {
    const args = devServerArgs({ port: 7233, headless: true, metricsPort: 9123 });
    expect(args[args.indexOf('--metrics-port') + 1]).toBe('9123');
    expect(devServerArgs({ port: 7233, headless: true })).not.toContain('--metrics-port');
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

describe("the worker's task latencies", () => {
  it('are read beside the server families, with or without a _seconds suffix', () => {
    const text = [
      `temporal_workflow_task_execution_latency_sum{service_name="temporal-core-sdk",workflow_type="approvalGateWorkflow"} 0.5`,
      `temporal_workflow_task_execution_latency_count{service_name="temporal-core-sdk",workflow_type="approvalGateWorkflow"} 100`,
      `temporal_workflow_task_replay_latency_seconds_sum{service_name="temporal-core-sdk",workflow_type="approvalGateWorkflow"} 0.25`,
      `temporal_workflow_task_replay_latency_seconds_count{service_name="temporal-core-sdk",workflow_type="approvalGateWorkflow"} 50`,
    ].join('\n');
    const t = parseMetricTotals(text);
    expect(t.get('temporal_workflow_task_execution_latency temporal-core-sdk:approvalGateWorkflow')).toEqual({
      sum: 0.5,
      count: 100,
    });
    expect(t.get('temporal_workflow_task_replay_latency temporal-core-sdk:approvalGateWorkflow')).toEqual({
      sum: 0.25,
      count: 50,
    });
  });
});

describe('groupMeter and serverTimeMeter (bench/pending-groups.ts)', () => {
  /** Serves a worker's and a server's metrics whose counters grow by one step per request. */
  async function endpoints(): Promise<{
    worker: string;
    server: string;
    serverReads(): number;
    close(): Promise<void>;
  }> {
    let workerReads = 0;
    let serverReads = 0;
    const srv = http.createServer((req, res) => {
      if (req.url === '/worker') {
        const n = ++workerReads;
        res.end(
          [
            `temporal_sticky_cache_hit_total{a="1"} ${n}`,
            `temporal_sticky_cache_miss_total{a="1"} ${2 * n}`,
            `temporal_workflow_task_execution_latency_sum{service_name="sdk",workflow_type="g"} ${n * 0.004}`,
            `temporal_workflow_task_execution_latency_count{service_name="sdk",workflow_type="g"} ${n}`,
          ].join('\n'),
        );
      } else {
        const n = ++serverReads;
        res.end(exposition(n * 0.01, n, 0));
      }
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    return {
      worker: `${base}/worker`,
      server: `${base}/server`,
      serverReads: () => serverReads,
      close: () => new Promise((r) => srv.close(() => r())),
    };
  }

  it("adds each decision's worker readings and CPU to its group, and per decision gives the averages", async () => {
    const ep = await endpoints();
    try {
      const metered = groupMeter({ workerMetrics: ep.worker, serverPids: [], workerPid: process.pid });
      const tally = newTally();
      let ran = 0;
      await metered(tally, async () => ran++);
      await metered(tally, async () => ran++);
      expect(ran).toBe(2);
      expect(tally.decisions).toBe(2);
      // each decision sees the worker's endpoint read once before and once after: one step of growth
      expect(tally.tasks).toEqual({ hit: 2, miss: 4 });
      const worker = tallyTime(tally, 'worker')!;
      expect(worker[0]!.key).toBe('temporal_workflow_task_execution_latency sdk:g');
      expect(worker[0]!.msPerUnit).toBeCloseTo(4);
      expect(worker[0]!.callsPerUnit).toBeCloseTo(1);
      expect(tallyCpu(tally).worker).toBeGreaterThanOrEqual(0);
      // the server's megabytes are never read around a timed decision
      expect(ep.serverReads()).toBe(0);
      expect(tallyTime(tally, 'server')).toBeUndefined();
    } finally {
      await ep.close();
    }
  });

  it("reads the server's metrics once before and once after a batch, and divides by the batch's decisions", async () => {
    const ep = await endpoints();
    try {
      const serverTimed = serverTimeMeter(ep.server);
      const tally = newTally();
      let ran = 0;
      await serverTimed(tally, 4, async () => {
        expect(ep.serverReads()).toBe(1); // the reading before the batch is done when it starts
        ran++;
      });
      expect(ran).toBe(1);
      expect(ep.serverReads()).toBe(2);
      expect(tally.serverDecisions).toBe(4);
      // one step of growth (10 ms of UpdateWorkflowExecution, one call) over four decisions
      const server = tallyTime(tally, 'server')!;
      const update = server.find((d) => d.key === 'persistence_latency history:UpdateWorkflowExecution')!;
      expect(update.msPerUnit).toBeCloseTo(2.5);
      expect(update.callsPerUnit).toBeCloseTo(0.25);
      // an empty batch reads nothing and counts nothing
      await serverTimed(tally, 0, async () => ran++);
      expect([ran, ep.serverReads(), tally.serverDecisions]).toEqual([1, 2, 4]);
    } finally {
      await ep.close();
    }
  });

  it('leaves a group without server figures once one reading is missing', async () => {
    const tally = newTally();
    await serverTimeMeter('http://127.0.0.1:1/metrics')(tally, 2, async () => undefined); // nothing listens there
    expect(tally.serverDecisions).toBe(2);
    expect(tallyTime(tally, 'server')).toBeUndefined();
    const none = newTally();
    await serverTimeMeter(undefined)(none, 2, async () => undefined); // no endpoint at all
    expect(tallyTime(none, 'server')).toBeUndefined();
  });
});

describe('addCpu (bench/cpu.ts)', () => {
  it('sums every figure, the thread groups too', () => {
    const acc: CpuSpent = { bench: 0, server: 0 };
    const threads = { main: 1, workflow: 2, core: 3, helpers: 4 };
    addCpu(acc, { bench: 10, server: 5, worker: 2, threads });
    addCpu(acc, { bench: 1, server: 1, worker: 1, threads });
    expect(acc).toEqual({ bench: 11, server: 6, worker: 3, threads: { main: 2, workflow: 4, core: 6, helpers: 8 } });
  });
});

describe('fullQueueGroups', () => {
  const queue = Array.from({ length: 10 }, (_, i) => i);

  it('takes the newest, the oldest and the next oldest, each once', () => {
    expect(fullQueueGroups(queue, 3)).toEqual([
      [7, 8, 9],
      [3, 4, 5],
      [0, 1, 2],
    ]);
  });

  it('gives the newest their full count first when the queue is short, and never shares a gate', () => {
    expect(fullQueueGroups(queue, 4)).toEqual([
      [6, 7, 8, 9],
      [4, 5],
      [0, 1, 2, 3],
    ]);
    expect(fullQueueGroups(queue, 6)).toEqual([[4, 5, 6, 7, 8, 9], [], [0, 1, 2, 3]]);
    expect(fullQueueGroups(queue, 12)).toEqual([queue, [], []]);
    expect(fullQueueGroups(queue, 0)).toEqual([[], [], []]);
  });
});

describe('batchGroups', () => {
  const queue = Array.from({ length: 20 }, (_, i) => i);

  it('takes the same three kinds from the gates the timed groups left', () => {
    // timed: newest 17-19, evicted 3-5, oldest 0-2; the batches come from 6-16
    expect(batchGroups(queue, 3)).toEqual([
      [14, 15, 16],
      [9, 10, 11],
      [6, 7, 8],
    ]);
    const timed = fullQueueGroups(queue, 3).flat();
    expect(
      batchGroups(queue, 3)
        .flat()
        .filter((g) => timed.includes(g)),
    ).toEqual([]);
  });

  it('gets what is left, and nothing once the timed groups took the queue', () => {
    expect(batchGroups(queue, 5)).toEqual([[10, 11, 12, 13, 14], [], []]);
    expect(batchGroups(queue, 7)).toEqual([[], [], []]);
  });
});
