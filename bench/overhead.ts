// Section `overhead`: the external path (create, approve by update, consume by update)
// of the gate against a bare workflow with the same contract, at concurrency 1 and C.
// Rounds alternate bare and gate; each figure is the median over the rounds.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { GateClient } from '../src/client/gate-client';
import { bareApproveUpdate, bareConsumeUpdate, bareLifecycleWorkflow } from './baseline-workflows';
import { Closers } from './closers';
import { progress, type BenchContext } from './context';
import {
  AGENT_ID,
  BENCH_RUN,
  REVIEWER_ID,
  apiGateClient,
  approval,
  createBody,
  retryTransient,
  sectionClient,
  startGate,
  type RetryCounter,
} from './gate-requests';
import { ceilingText, cpuMeter, cpuText, medianCpu, perUnit, threadsText, type CpuSpent } from './cpu';
import { historyShape, taskTimeline } from './history-shape';
import { fmt } from './report';
import { inTurn, median, now, percentile, runConcurrent } from './stats';
import { quietBeforeRound } from './settle';
import { startBaselineWorker, startGateWorker } from './workers';

/** One lifecycle's timings (ms): start..start returned, ..approve returned, ..consume returned. */
interface Sample {
  create: number;
  approve: number;
  consume: number;
  total: number;
}

type Kind = 'bare' | 'gate';
type Driver = (tag: string, i: number) => Promise<{ sample: Sample; handle: WorkflowHandle }>;

interface RunResult {
  /** One of the run's executions, for its history's shape. */
  last: WorkflowHandle;
  /** The run's last executions (up to 30), for their tasks' timeline. */
  recent: WorkflowHandle[];
  throughput: number;
  p50: number;
  steps: Omit<Sample, 'total'>;
  /** CPU ms per lifecycle, the closing tasks included. */
  cpu: CpuSpent;
}

function drivers(
  clients: Record<Kind, Client>,
  queues: Record<Kind, string>,
  gates: GateClient,
  retries: RetryCounter,
): Record<Kind, Driver> {
  const timed = async (
    start: () => Promise<WorkflowHandle>,
    approve: (h: WorkflowHandle) => Promise<unknown>,
    consume: (h: WorkflowHandle) => Promise<unknown>,
  ) => {
    const t0 = now();
    const handle = await start();
    const t1 = now();
    await retryTransient(() => approve(handle), retries);
    const t2 = now();
    await retryTransient(() => consume(handle), retries);
    const t3 = now();
    return { handle, sample: { create: t1 - t0, approve: t2 - t1, consume: t3 - t2, total: t3 - t0 } };
  };
  return {
    bare: (tag, i) =>
      timed(
        () =>
          clients.bare.workflow.start(bareLifecycleWorkflow, {
            workflowId: `bare_${BENCH_RUN}_${tag}_${i}`,
            taskQueue: queues.bare,
            args: [{ body: createBody(tag, i) }],
          }),
        (h) => h.executeUpdate(bareApproveUpdate, { args: [{ reviewer_id: REVIEWER_ID }] }),
        (h) => h.executeUpdate(bareConsumeUpdate, { args: [{ consumer_id: AGENT_ID }] }),
      ),
    gate: async (tag, i) => {
      let gate: Awaited<ReturnType<typeof startGate>> | undefined;
      return timed(
        // GateClient's create, decide and consume, as behind the API (it writes the events the updates hand back).
        async () => (gate = await startGate(clients.gate, gates, tag, i)).handle,
        () => gates.decide(gate!.id, approval(gate!)),
        () => gates.consume(gate!.id, AGENT_ID),
      );
    },
  };
}

/** n lifecycles at concurrency c; then waits (untimed) until every workflow has closed, so runs never overlap. */
async function measure(
  drive: Driver,
  n: number,
  c: number,
  tag: string,
  serverPids: readonly number[],
): Promise<RunResult> {
  const spent = cpuMeter(serverPids);
  const samples: Sample[] = [];
  const handles: WorkflowHandle[] = [];
  const wall = await runConcurrent(n, c, async (i) => {
    const r = await drive(tag, i);
    samples.push(r.sample);
    handles.push(r.handle);
  });
  await Promise.all(handles.map((h) => h.result()));
  const cpu = spent();
  const p = (k: keyof Sample): number =>
    percentile(
      samples.map((s) => s[k]),
      50,
    );
  return {
    last: handles[handles.length - 1]!,
    recent: handles.slice(-30),
    throughput: (n * 1000) / wall,
    p50: p('total'),
    steps: { create: p('create'), approve: p('approve'), consume: p('consume') },
    cpu: perUnit(cpu, n),
  };
}

const steps = (s: RunResult['steps']): string =>
  `create ${fmt(s.create, 'ms')} approve ${fmt(s.approve, 'ms')} consume ${fmt(s.consume, 'ms')}`;

export async function overheadSection(ctx: BenchContext): Promise<void> {
  const { cfg, report } = ctx;
  const closers = new Closers();
  try {
    const gateWorker = closers.add(await startGateWorker(ctx, 'overhead'));
    const bareWorker = closers.add(await startBaselineWorker(ctx, 'overhead'));
    const retries: RetryCounter = { retries: 0 };
    const clients: Record<Kind, Client> = {
      bare: sectionClient(ctx, bareWorker.connection),
      gate: sectionClient(ctx, gateWorker.connection),
    };
    const gates = closers.add(
      apiGateClient(clients.gate, gateWorker.taskQueue, gateWorker.env.GATE_DATA_DIR!, cfg.client === 'worker'),
      (g) => g.close(),
    );
    const drive = drivers(clients, { bare: bareWorker.taskQueue, gate: gateWorker.taskQueue }, gates, retries);
    for (const c of [1, cfg.concurrency]) {
      for (const kind of ['bare', 'gate'] as const)
        await measure(drive[kind], Math.max(2 * c, 10), c, `warm${c}${kind}`, []);
      const runs: Record<Kind, RunResult[]> = { bare: [], gate: [] };
      for (let r = 0; r < cfg.rounds; r++) {
        for (const kind of inTurn(['bare', 'gate'] as const, r)) {
          await quietBeforeRound(ctx, `overhead c${c} round ${r + 1} ${kind}`);
          const res = await measure(drive[kind], cfg.n, c, `c${c}r${r}${kind}`, ctx.server.pids);
          runs[kind].push(res);
          progress(
            `overhead c${c} round ${r + 1}/${cfg.rounds} ${kind}: ${fmt(res.throughput, '/s')}, lifecycle p50 ${fmt(res.p50, 'ms')} (${steps(res.steps)})`,
          );
        }
      }
      const med = (kind: Kind, f: (x: RunResult) => number): number => median(runs[kind].map(f));
      const stepMed = (kind: Kind): RunResult['steps'] => ({
        create: med(kind, (x) => x.steps.create),
        approve: med(kind, (x) => x.steps.approve),
        consume: med(kind, (x) => x.steps.consume),
      });
      const isC1 = c === 1;
      report.ratio(
        `overhead.external.throughput_c${c}`,
        med('gate', (x) => x.throughput),
        med('bare', (x) => x.throughput),
        '/s',
        isC1 ? undefined : { op: '>=', value: 0.8 },
      );
      report.ratio(
        `overhead.external.lifecycle_p50_c${c}`,
        med('gate', (x) => x.p50),
        med('bare', (x) => x.p50),
        'ms',
        { op: '<=', value: 1.2 },
      );
      report.info(
        `overhead.external.steps_p50_c${c}`,
        `gate ${steps(stepMed('gate'))}  bare ${steps(stepMed('bare'))}`,
      );
      const [gateCpu, bareCpu] = [medianCpu(runs.gate), medianCpu(runs.bare)];
      report.info(`overhead.external.cpu_per_lifecycle_c${c}`, `gate ${cpuText(gateCpu)}  bare ${cpuText(bareCpu)}`);
      report.info(
        `overhead.external.cpu_threads_c${c}`,
        `gate ${threadsText(gateCpu)}  bare ${threadsText(bareCpu)} (the bench process, by thread)`,
      );
      if (!isC1) report.info(`overhead.external.cpu_ceiling_c${c}`, ceilingText(gateCpu, bareCpu));
      // Read after the timed rounds: the last round's executions, from their histories.
      for (const kind of ['gate', 'bare'] as const)
        report.info(`overhead.external.tasks_${kind}_c${c}`, await taskTimeline(runs[kind].at(-1)!.recent));
      if (isC1)
        for (const kind of ['gate', 'bare'] as const)
          report.info(`overhead.external.history_${kind}`, await historyShape(runs[kind][0]!.last));
    }
    report.info(
      'overhead.external.transient_retries',
      `${retries.retries} (updates the server turned away for load, retried as GateClient does)`,
    );
  } finally {
    await closers.close();
  }
}
