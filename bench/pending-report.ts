// The pending section's figures and targets.
import type { BenchConfig } from './config';
import { threadsText, type CpuSpent } from './cpu';
import type { Decisions, ListTiming } from './pending-phases';
import type { RssSampler } from './rss';
import { FULL_GROUPS, GROUPS, tallyCpu, tallyTime, type Group, type GroupTally } from './pending-groups';
import { formatMetricDeltas } from './server-metrics';
import type { ServerProcess } from './server-processes';
import { fmt, type Report } from './report';
import { QUIET_SERVER_CORES, QUIET_TIMEOUT_MS, QUIET_WINDOW_MS, type ServerQuiet } from './settle';
import { percentile } from './stats';

export interface PendingResult {
  cacheSize: number;
  workerPid: number;
  workerRss: RssSampler;
  /** One sampler per server process tree (bench/server-processes.ts); none for a server on another host. */
  serverRss: (ServerProcess & { rss: RssSampler })[];
  rssAfterFill: number;
  fillMs: number;
  /** From the last start of the fill until the worker had caught up. */
  settledMs: number;
  /**
   * Each group's approvals: idle (before the fill), newest (cached), evicted (out of the
   * worker's cache, the execution loaded into the server's by a describe just before) and
   * oldest (out of the worker's cache, and of the server's too when the queue outgrows it).
   */
  decided: Record<Group, Decisions>;
  /** The untimed approvals of the server-time batches (bench/pending-groups.ts). */
  batchDecided: Decisions;
  /** The server's load before the idle and the full-queue decisions (the bench waits for it to fall). */
  quiet: { idle: ServerQuiet; full: ServerQuiet };
  /** What each group's decisions cost, read around each decision, and the server's time over its batch (bench/pending-groups.ts). */
  groups: Record<Group, GroupTally>;
  list50: ListTiming;
  list500: ListTiming;
}

const p50 = (xs: number[]): number => percentile(xs, 50);

function listExtra(t: ListTiming): string {
  return `p50 ${t.p50.toFixed(1)} ms, ${t.minCount === Infinity ? 'no answer' : `>= ${t.minCount} approvals per answer`}${t.errors ? `, ${t.errors} errors` : ''}`;
}

export function reportPending(report: Report, cfg: BenchConfig, r: PendingResult): void {
  const n = cfg.pending;
  const outOfCache = n > r.cacheSize + 6 * cfg.decisions; // three timed groups and three batches
  report.info(
    'pending.setup',
    `${n} pending gates on one worker process (pid ${r.workerPid}); GATE_WORKFLOW_CACHE_SIZE=${r.cacheSize}${outOfCache ? '' : ' >= most of the queue: the "evicted" and "oldest" gates may still be cached'}`,
  );
  report.value(
    'pending.fill_throughput',
    (n * 1000) / r.fillMs,
    '/s',
    undefined,
    `${n} gates started in ${(r.fillMs / 1000).toFixed(1)} s at concurrency ${cfg.fillC}`,
  );
  report.value(
    'pending.worker_throughput',
    (n * 1000) / (r.fillMs + r.settledMs),
    '/s',
    undefined,
    `every gate's first task done ${(r.settledMs / 1000).toFixed(1)} s after the last start`,
  );
  report.value(
    'pending.worker_rss_peak',
    r.workerRss.peak,
    'MiB',
    { op: '<', value: 1024 },
    `(after the fill ${r.rssAfterFill.toFixed(0)} MiB, at the end ${r.workerRss.last.toFixed(0)} MiB)`,
  );
  const [server, ...others] = r.serverRss;
  if (server)
    report.value(
      'pending.server_rss',
      server.rss.last,
      'MiB',
      undefined,
      `peak ${server.rss.peak.toFixed(0)} MiB (pid ${server.pid}, ${server.role})`,
    );
  else report.info('pending.server_rss', 'n/a (TEMPORAL_ADDRESS names no process on this host; see BENCH_SERVER_PIDS)');
  if (others.length > 0)
    report.info(
      'pending.server_rss_others',
      others
        .map(
          (p) => `pid ${p.pid} (${p.role}) and its children ${fmt(p.rss.last, 'MiB')}, peak ${fmt(p.rss.peak, 'MiB')}`,
        )
        .join('; ') +
        " (summed per process: memory they share, such as a database's shared buffers, counts once per process)",
    );
  const { idle, newest, evicted, oldest } = r.decided;
  const failures = [...GROUPS.flatMap((g) => r.decided[g].failures), ...r.batchDecided.failures];
  const tried = (d: Decisions): number => d.latencies.length + d.failures.length;
  const attempted = (g: Group): number => tried(r.decided[g]);
  report.value(
    'pending.decision_failures',
    failures.length,
    '',
    { op: '==', value: 0 },
    `of ${GROUPS.reduce((s, g) => s + attempted(g), 0) + tried(r.batchDecided)} approvals by update (${GROUPS.map((g) => `${g} ${attempted(g)}`).join(', ')}; untimed, for the server's metrics, ${tried(r.batchDecided)})${failures.length ? `; first: ${failures[0]}` : ''}`,
  );
  report.value(
    'pending.decision_idle_p50',
    p50(idle.latencies),
    'ms',
    undefined,
    `${attempted('idle')} gates, before the fill`,
  );
  report.ratio(
    'pending.decision_uncached_p50',
    p50(evicted.latencies),
    p50(newest.latencies),
    'ms',
    { op: '<=', value: 1.5 },
    ['evicted', 'newest'],
  );
  report.ratio('pending.decision_cold_p50', p50(oldest.latencies), p50(newest.latencies), 'ms', undefined, [
    'oldest',
    'newest',
  ]);
  const hits = (g: Group): string => {
    const t = r.groups[g].tasks;
    return `${g} ${t.hit} of ${t.hit + t.miss}`;
  };
  report.info(
    'pending.decision_cache',
    `workflow tasks that found their gate in the worker's cache: ${FULL_GROUPS.map(hits).join(', ')} (the SDK's sticky cache counters)`,
  );
  report.ratio(
    'pending.decision_full_p50',
    p50([newest, evicted, oldest].flatMap((d) => d.latencies)),
    p50(idle.latencies),
    'ms',
    { op: '<=', value: 2 },
    ['full', 'idle'],
  );
  const cpu = (c: CpuSpent): string =>
    `bench ${fmt(c.bench, 'ms')} (${threadsText(c)}) + server ${fmt(c.server, 'ms')} + worker ${fmt(c.worker ?? NaN, 'ms')} (${threadsText(c, 'workerThreads')})`;
  report.info(
    'pending.decision_cpu',
    `per decision: ${GROUPS.map((g) => `${g} ${cpu(tallyCpu(r.groups[g]))}`).join('; ')}`,
  );
  const sources = {
    server: ["the server's metrics over the group's untimed batch", 'no server metrics endpoint: BENCH_SERVER_METRICS'],
    worker: ["the worker's SDK metrics", "the worker's metrics endpoint did not answer"],
  } as const;
  for (const [of, [from, missing]] of Object.entries(sources) as [keyof typeof sources, readonly [string, string]][])
    for (const group of GROUPS) {
      const deltas = tallyTime(r.groups[group], of);
      report.info(
        `pending.${of}_time_${group}`,
        deltas ? `per decision, from ${from}: ${formatMetricDeltas(deltas)}` : `n/a (${missing})`,
      );
    }
  const quiet = (q: ServerQuiet): string =>
    Number.isNaN(q.cores)
      ? 'not measured (no server process on this host)'
      : `${q.cores.toFixed(2)} cores after ${(q.waitedMs / 1000).toFixed(1)} s${q.quiet ? '' : ' (still busy, timed anyway)'}`;
  report.info(
    'pending.server_quiet',
    `full ${quiet(r.quiet.full)}; idle ${quiet(r.quiet.idle)} (the server's CPU over the ${QUIET_WINDOW_MS / 1000} s before the timed decisions; the bench waits up to ${QUIET_TIMEOUT_MS / 1000} s for it to fall under ${QUIET_SERVER_CORES} cores, so the fill's aftermath is not timed)`,
  );
  report.value(
    'pending.list_limit50_p95',
    r.list50.errors ? NaN : r.list50.p95,
    'ms',
    { op: '<', value: 200 },
    listExtra(r.list50),
  );
  report.value(
    'pending.list_limit500_p95',
    r.list500.errors ? NaN : r.list500.p95,
    'ms',
    { op: '<', value: 1000 },
    listExtra(r.list500),
  );
}
