// The burst section's figures, each with its target (bench/README.md, "Figures and targets").
import type { GateConfig } from '../src/config';
import { DEFAULT_DECISION_WAIT_S, DEFAULT_MAX_BACKLOG_S } from '../src/config';
import os from 'node:os';
import type { BurstCreates, DecisionAnswers } from './burst-agents';
import { totalCpu, type GateCpu } from './burst-workers';
import type { BenchConfig } from './config';
import { fmt, type Report } from './report';
import { percentile } from './stats';

export interface BurstResult {
  gate: GateConfig;
  /** First tasks per second the workers ran alone. */
  workerRate: number;
  /** CPU ms per create with no worker polling, per first task with the workers alone, and per gate of the burst. */
  createCpu: GateCpu;
  taskCpu: GateCpu;
  burstCpu: GateCpu;
  /** Wall time over which burstCpu was read: the first create to the decisions. */
  burstWallMs: number;
  creates: BurstCreates;
  /** Distinct request ids among the creates taken. */
  distinct: number;
  /** Gates visibility counts on the burst's queue, and how many it should. */
  counted: number;
  expected: number;
  /** The oldest backlog the bench saw (its own DescribeTaskQueue every 500 ms) and the count then. */
  peakAgeS: number;
  peakCount: number;
  /** The longest wait a new gate would have had (`behindS`), as the bench read it and as the API's admission did. */
  peakBehindS: number;
  apiPeakBehindS: number;
  /** The backlog when the decisions were sent. */
  atDecisions?: { ageS: number; count: number };
  idle: DecisionAnswers;
  decided: DecisionAnswers;
  /** Gates answered 202 whose decision was not applied within 5 minutes. */
  notApplied: string[];
  list: { p50: number; p95: number; n: number; errors: number };
  decisionP50: number;
}

export function reportBurst(report: Report, cfg: BenchConfig, r: BurstResult): void {
  const c = cfg.burstC;
  const n = cfg.burstN;
  report.info(
    'burst.setup',
    `${n} creates at c${c}; ${cfg.burstWorkers} worker process(es); GATE_MAX_BACKLOG_S=${r.gate.maxBacklogS ?? DEFAULT_MAX_BACKLOG_S} GATE_DECISION_WAIT_S=${r.gate.decisionWaitS ?? DEFAULT_DECISION_WAIT_S}; decisions ${cfg.burstPauseS} s after the last create`,
  );
  report.info(
    'burst.worker_first_task_rate',
    `${fmt(r.workerRate, '/s')} (${cfg.burstRateN} gates, the workers alone)`,
  );
  const taken = r.creates.accepted.length;
  report.ratio(
    `burst.creates_accepted_c${c}`,
    (taken * 1000) / r.creates.ms,
    r.workerRate,
    '/s',
    { op: '>=', value: 0.8 },
    ['accepted', 'worker first tasks'],
  );
  const part = (g: GateCpu) =>
    `${fmt(totalCpu(g), 'ms')} (server ${fmt(g.server, 'ms')}, API and clients ${fmt(g.api, 'ms')}, workers ${fmt(g.workers, 'ms')})`;
  const cores = os.cpus().length;
  const busy = (rate: number, g: GateCpu) => ((rate * totalCpu(g)) / 1000).toFixed(2);
  report.info(
    'burst.cpu_per_gate',
    `create alone ${part(r.createCpu)}; first task alone ${part(r.taskCpu)}; in the burst ${part(r.burstCpu)}. Cores busy: ${busy(r.workerRate, r.taskCpu)} of ${cores} alone, ${((totalCpu(r.burstCpu) * n) / r.burstWallMs).toFixed(2)} in the burst`,
  );
  report.info(
    'burst.cpu_ceiling',
    `${(totalCpu(r.taskCpu) / (totalCpu(r.createCpu) + totalCpu(r.taskCpu))).toFixed(2)} (a first task's CPU over a create's and a first task's: the creates' ratio's limit when the cores are full alone and in the burst)`,
  );
  report.info(
    'burst.creates_shed',
    `${r.creates.shedAnswers} answers 503 gate_busy; ${r.creates.shedCreates} of ${n} creates shed at least once`,
  );
  report.info(
    'burst.backlog_peak',
    `oldest task ${r.peakAgeS.toFixed(1)} s (${r.peakCount} tasks then); a new gate's wait ${r.peakBehindS.toFixed(1)} s read by the bench every 500 ms, ${r.apiPeakBehindS.toFixed(1)} s by the API${r.atDecisions ? `; at the decisions ${r.atDecisions.ageS.toFixed(1)} s, ${r.atDecisions.count} tasks` : ''}`,
  );
  const lost = r.creates.lost.length + Math.max(0, taken - r.distinct) + Math.max(0, r.expected - r.counted);
  report.value(
    'burst.creates_lost',
    lost,
    '',
    { op: '==', value: 0 },
    `${r.creates.lost.length} never taken${r.creates.lost[0] ? ` (first: ${r.creates.lost[0].why})` : ''}; ${taken} taken, ${r.distinct} distinct; visibility counts ${r.counted} of ${r.expected} gates`,
  );
  const d = r.decided;
  const total = d.ok200 + d.accepted202 + d.other.length;
  report.value(
    'burst.decisions_other',
    d.other.length,
    '',
    { op: '==', value: 0 },
    `of ${total}: 200 ${d.ok200}, 202 ${d.accepted202}${d.other[0] ? `; first other: ${d.other[0]}` : ''}${r.notApplied.length ? `; ${r.notApplied.length} accepted never applied` : ''}`,
  );
  report.value('burst.decisions_200_share', total ? d.ok200 / total : NaN, '', { op: '>=', value: 0.9 });
  report.ratio('burst.decision_p50', r.decisionP50, percentile(r.idle.latencies, 50), 'ms', { op: '<=', value: 2 }, [
    'burst',
    'idle',
  ]);
  report.info(
    'burst.decision_p95',
    `burst ${fmt(percentile(d.latencies, 95), 'ms')}  idle ${fmt(percentile(r.idle.latencies, 95), 'ms')} (${total} approvals at once each)`,
  );
  report.value(
    'burst.list_limit50_p95',
    r.list.p95,
    'ms',
    { op: '<', value: 200 },
    `p50 ${fmt(r.list.p50, 'ms')}, ${r.list.n} listings during the creates${r.list.errors ? `, ${r.list.errors} not 200` : ''}`,
  );
}
