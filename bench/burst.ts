// Section `burst`: what a team's batch job meets. BENCH_BURST_N creates over HTTP at
// concurrency BENCH_BURST_C, as fast as the API takes them, each retried with its own
// Idempotency-Key after the Retry-After of a shed create (503 gate_busy); a reviewer's
// queue page refreshing meanwhile; then, BENCH_BURST_PAUSE_S after the last create was
// taken, BENCH_BURST_DECISIONS approvals at once on the oldest and the newest gates.
// Against a baseline measured in the same run: the same approvals at once on gates of an
// idle system, and the rate at which the workers run the gates' first tasks alone. The
// workers run as processes of their own (1 as `gate dev`, 2 as `gate stack` with
// TEMPORAL_ADDRESS), the API in the bench process with its own connection.
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config';
import { startBenchApi, type BenchApi } from './api';
import { awaitApplied, burstCreates, decideAtOnce, listWhile, type Accepted } from './burst-agents';
import { reportBurst } from './burst-report';
import { backlogOf, firstTaskRate, startBurstWorkers, type BurstWorkers, type GateCpu } from './burst-workers';
import { cpuMeter, treeCpuMs } from './cpu';
import { behindS } from '../src/client/backlog-admission';
import { progress, type BenchContext } from './context';
import { waitForQuietServer, waitUntilSettled } from './settle';
import { now, percentile, sleep } from './stats';

/** How long a bench agent keeps sending a shed create before it counts it lost. */
const SHED_WAIT_MS = 600_000;

export async function burstSection(ctx: BenchContext): Promise<void> {
  const { cfg, client } = ctx;
  const gate = loadConfig(process.env);
  progress(`burst: the workers' first-task rate, ${cfg.burstRateN} gates, nothing else happening`);
  const alone = await firstTaskRate(ctx, cfg.burstWorkers, cfg.burstRateN);
  progress(`burst: ${alone.rate.toFixed(1)} first tasks/s`);
  await waitForQuietServer(ctx.server.pids, { timeoutMs: 60_000, onProgress: progress });

  let workers: BurstWorkers | undefined;
  let api: BenchApi | undefined;
  const made: string[] = [];
  try {
    workers = await startBurstWorkers(ctx, 'burst', cfg.burstWorkers);
    api = await startBenchApi(workers.env);
    const w = workers;
    const settle = (ids: string[]) =>
      waitUntilSettled(client, cfg.namespace, w.queue, ids.slice(-20), {
        timeoutMs: 300_000,
        onProgress: progress,
        check: () => w.check(),
      });

    // (a) idle: the same approvals at once on gates of a system with nothing else happening (a warm-up round first).
    const d = cfg.burstDecisions;
    const idleRefs = (await burstCreates(api, 'idle', 2 * d, cfg.burstC, SHED_WAIT_MS)).accepted;
    made.push(...idleRefs.map((g) => g.id));
    await settle(made);
    await decideAtOnce(api, idleRefs.slice(0, d));
    await sleep(2000);
    const idle = await decideAtOnce(api, idleRefs.slice(d));

    // (b) the burst, with the queue page refreshing and the backlog sampled throughout.
    let peak = { ageS: 0, count: 0, dispatchRate: 0 };
    let peakBehind = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const b = await backlogOf(client, cfg.namespace, w.queue).catch(() => undefined);
        if (b && b.ageS > peak.ageS) peak = b;
        if (b) peakBehind = Math.max(peakBehind, behindS(b));
        await sleep(500);
      }
    })();
    const lister = listWhile(api, 250);
    const step = Math.max(1, Math.ceil(cfg.burstN / 10));
    const meter = cpuMeter(ctx.server.pids);
    const w0 = treeCpuMs(w.pids);
    const t0 = now();
    const creates = await burstCreates(api, 'burst', cfg.burstN, cfg.burstC, SHED_WAIT_MS, (count) => {
      if (count % step === 0) {
        w.check();
        progress(
          `burst: ${count}/${cfg.burstN} creates taken in ${((now() - t0) / 1000).toFixed(0)} s, backlog peak ${peak.ageS.toFixed(1)} s`,
        );
      }
    });
    made.push(...creates.accepted.map((a) => a.id));
    const list = await lister.stop();

    // (c) the reviewer, a little later: approvals at once on the oldest and the newest gates.
    await sleep(cfg.burstPauseS * 1000);
    // The burst's CPU up to the decisions, when the workers have caught up: creates, first tasks, the listings.
    const spent = meter();
    const burstWallMs = now() - t0;
    const burstCpu: GateCpu = {
      server: spent.server / cfg.burstN,
      api: spent.bench / cfg.burstN,
      workers: (treeCpuMs(w.pids) - w0) / cfg.burstN,
    };
    const byTime = [...creates.accepted].sort((a, b) => a.at - b.at);
    const half = Math.floor(d / 2);
    const targets: Accepted[] = [...byTime.slice(0, half), ...byTime.slice(-(d - half))];
    const atDecisions = await backlogOf(client, cfg.namespace, w.queue).catch(() => undefined);
    const decided = await decideAtOnce(api, targets);
    sampling = false;
    await sampler;
    const notApplied = await awaitApplied(api, decided.pending, 300_000);

    // (d) no create lost: every create taken is a gate on this queue, once.
    const distinct = new Set(creates.accepted.map((a) => a.id)).size;
    const counted = await countGates(ctx, w.queue, made.length);
    reportBurst(ctx.report, cfg, {
      gate,
      workerRate: alone.rate,
      createCpu: alone.createCpu,
      taskCpu: alone.taskCpu,
      burstCpu,
      burstWallMs,
      creates,
      distinct,
      counted,
      expected: made.length,
      peakAgeS: peak.ageS,
      peakCount: peak.count,
      peakBehindS: peakBehind,
      apiPeakBehindS: api.admission.peakBehindS,
      atDecisions,
      idle,
      decided,
      notApplied,
      list,
      decisionP50: percentile(decided.latencies, 50),
    });
  } finally {
    await api?.close().catch(() => undefined);
    await workers?.stop().catch(() => undefined);
    if (made.length > 0 && workers) await cleanup(ctx, workers.queue);
  }
}

/** Gates on `queue` in visibility, waited for until it counts `expected` (eventually consistent) or 60 s pass. */
async function countGates(ctx: BenchContext, queue: string, expected: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  let n = 0;
  for (;;) {
    ({ count: n } = await ctx.client.workflow.count(
      `TaskQueue = '${queue}' AND WorkflowType = 'approvalGateWorkflow'`,
    ));
    if (n >= expected || Date.now() > deadline) return n;
    await sleep(1000);
  }
}

/** Ends the section's gates on a shared server (one batch job); the bench's own server is stopped after the last section anyway. */
async function cleanup(ctx: BenchContext, queue: string): Promise<void> {
  if (!ctx.server.external) return;
  await ctx.client.workflowService
    .startBatchOperation({
      namespace: ctx.cfg.namespace,
      jobId: `bench-burst-cleanup-${randomUUID()}`,
      visibilityQuery: `TaskQueue = '${queue}' AND ExecutionStatus = 'Running'`,
      reason: 'approval-gate bench cleanup',
      terminationOperation: {},
    })
    .catch((err) => progress(`burst: cleanup on ${queue} failed: ${String(err)}`));
}
