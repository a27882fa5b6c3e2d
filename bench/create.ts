// Section `create`: POST /v1/approvals through the real API as `gate dev` runs it (auth,
// validation, hashing, the workflow start, eager on the in-process worker with
// GATE_EAGER_START, and the first audit event) against a bare `client.workflow.start`
// from this process, both at concurrency BENCH_CREATE_C, with their workers polling. The
// kinds take turns going first, each round on a quiet server; figures are medians over the
// rounds.
// CPU is read, and the settled rate counted, once each kind's worker has run every first task.
import type { Client } from '@temporalio/client';
import { GateClient } from '../src/client/gate-client';
import { http, startBenchApi } from './api';
import { bareLifecycleWorkflow } from './baseline-workflows';
import { Closers } from './closers';
import { ceilingText, cpuMeter, cpuText, medianCpu, perUnit, threadsText, type CpuSpent } from './cpu';
import { progress, type BenchContext } from './context';
import { AGENT_ID, BENCH_RUN, createBody } from './gate-requests';
import { fmt } from './report';
import { inTurn, median, now, percentile, runConcurrent } from './stats';
import { quietBeforeRound, waitUntilSettled } from './settle';
import { startBaselineWorker, startGateWorker } from './workers';

interface Round {
  throughput: number;
  /** Creates per second until the worker had run the first task of every one of them (see `firstTasksDone`). */
  settled: number;
  p50: number;
  errors: number;
  /** CPU ms per create (bench process, server), the first workflow task included; not the cleanup. */
  cpu: CpuSpent;
}

/** Histories read to find when the last first task completed: the latest starts finish last. */
const SETTLE_PROBES = 32;

/**
 * When (epoch ms, the server's clock) the worker completed the first workflow task of the
 * last of `ids` to get one. Assumes the server shares this host's clock (the embedded dev
 * server, `gate stack`).
 */
async function firstTasksDone(client: Client, ids: string[]): Promise<number> {
  const times = await Promise.all(
    ids.slice(-SETTLE_PROBES).map(async (id) => {
      const { events } = await client.workflow.getHandle(id).fetchHistory();
      const done = events?.find((e) => e.workflowTaskCompletedEventAttributes)?.eventTime;
      if (!done) throw new Error(`${id}: no completed workflow task after the queue settled`);
      return Number(done.seconds) * 1000 + Math.floor((done.nanos ?? 0) / 1e6);
    }),
  );
  return Math.max(...times);
}

/**
 * A round's cost and settled rate, once the worker on `queue` has run every new workflow's
 * first task. A start returns before its first task runs: that task is not part of the
 * calls' wall time, but it is part of the cost (CPU per create since `spent` started), and
 * a create is done only when it has run (`settled`: creates per second from `startedAt`).
 */
async function settleRound(
  ctx: BenchContext,
  queue: string,
  ids: string[],
  spent: () => CpuSpent,
  n: number,
  startedAt: number,
): Promise<{ cpu: CpuSpent; settled: number }> {
  await waitUntilSettled(ctx.client, ctx.cfg.namespace, queue, ids.slice(-8), {
    timeoutMs: 120_000,
    check: () => ctx.server.check(),
  });
  const cpu = perUnit(spent(), n);
  return { cpu, settled: (n * 1000) / ((await firstTasksDone(ctx.client, ids)) - startedAt) };
}

export async function createSection(ctx: BenchContext): Promise<void> {
  const { client, cfg, report } = ctx;
  const closers = new Closers();
  let lastError = '';
  try {
    const gateWorker = closers.add(await startGateWorker(ctx, 'create'));
    const bareWorker = closers.add(await startBaselineWorker(ctx, 'create'));
    // As in `gate dev`: the API shares the in-process worker's connection (eager creates with GATE_EAGER_START).
    const api = closers.add(await startBenchApi(gateWorker.env, gateWorker.connection), (a) => a.close());
    const gates = new GateClient(client, { taskQueue: gateWorker.taskQueue });
    const bareRound = async (tag: string, n: number): Promise<Round> => {
      const lat: number[] = [];
      const ids: string[] = [];
      const spent = cpuMeter(ctx.server.pids);
      const startedAt = Date.now();
      const wall = await runConcurrent(n, cfg.createC, async (i) => {
        const id = `bare_create_${BENCH_RUN}_${tag}_${i}`;
        const t0 = now();
        await client.workflow.start(bareLifecycleWorkflow, {
          workflowId: id,
          taskQueue: bareWorker.taskQueue,
          args: [{ body: createBody(tag, i) }],
        });
        lat.push(now() - t0);
        ids.push(id);
      });
      const { cpu, settled } = await settleRound(ctx, bareWorker.taskQueue, ids, spent, n, startedAt);
      // Untimed: cancel them (a cancellation request; the bare workflow ends cancelled).
      await runConcurrent(
        ids.length,
        cfg.createC,
        async (i) => void (await client.workflow.getHandle(ids[i]!).cancel()),
      );
      return { throughput: (n * 1000) / wall, settled, p50: percentile(lat, 50), errors: 0, cpu };
    };
    const gateRound = async (tag: string, n: number): Promise<Round> => {
      const lat: number[] = [];
      const ids: string[] = [];
      let errors = 0;
      const spent = cpuMeter(ctx.server.pids);
      const startedAt = Date.now();
      const wall = await runConcurrent(n, cfg.createC, async (i) => {
        const t0 = now();
        const res = await http(`${api.url}/v1/approvals`, api.agentKey, 'POST', createBody(tag, i));
        lat.push(now() - t0);
        if (res.status === 201) ids.push((res.body as { request_id: string }).request_id);
        else {
          errors++;
          lastError = `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
        }
      });
      const { cpu, settled } = await settleRound(ctx, gateWorker.taskQueue, ids, spent, n, startedAt);
      // Untimed: cancel them (they end `cancelled`), so the pending section's lists see only its own gates.
      await runConcurrent(ids.length, cfg.createC, (i) =>
        gates.cancel(ids[i]!, AGENT_ID, 'bench cleanup').then(() => undefined),
      );
      return { throughput: (n * 1000) / wall, settled, p50: percentile(lat, 50), errors, cpu };
    };
    await bareRound('warm', 2 * cfg.createC);
    await gateRound('warm', 2 * cfg.createC);
    const rounds = { bare: [] as Round[], gate: [] as Round[] };
    const run = { bare: bareRound, gate: gateRound };
    for (let r = 0; r < cfg.rounds; r++) {
      for (const kind of inTurn(['bare', 'gate'] as const, r)) {
        // The previous round's cleanup (its cancellations) must not run inside this one.
        await quietBeforeRound(ctx, `create round ${r + 1} ${kind}`);
        rounds[kind].push(await run[kind](`r${r}`, cfg.createN));
      }
      const [b, g] = [rounds.bare[r]!, rounds.gate[r]!];
      progress(
        `create round ${r + 1}/${cfg.rounds}: http ${fmt(g.throughput, '/s')} p50 ${fmt(g.p50, 'ms')}; bare start ${fmt(b.throughput, '/s')} p50 ${fmt(b.p50, 'ms')}`,
      );
    }
    const med = (xs: Round[], f: (r: Round) => number): number => median(xs.map(f));
    const c = cfg.createC;
    report.ratio(
      `create.http_throughput_c${c}`,
      med(rounds.gate, (r) => r.throughput),
      med(rounds.bare, (r) => r.throughput),
      '/s',
      { op: '>=', value: 0.8 },
      ['http', 'bare start'],
    );
    report.ratio(
      `create.settled_throughput_c${c}`,
      med(rounds.gate, (r) => r.settled),
      med(rounds.bare, (r) => r.settled),
      '/s',
      undefined,
      ['http', 'bare start'],
    );
    report.ratio(
      `create.p50_c${c}`,
      med(rounds.gate, (r) => r.p50),
      med(rounds.bare, (r) => r.p50),
      'ms',
      undefined,
      ['http', 'bare start'],
    );
    const [gateCpu, bareCpu] = [medianCpu(rounds.gate), medianCpu(rounds.bare)];
    report.info('create.cpu_per_create', `http ${cpuText(gateCpu)}  bare start ${cpuText(bareCpu)}`);
    report.info(
      'create.cpu_threads',
      `http ${threadsText(gateCpu)}  bare start ${threadsText(bareCpu)} (the bench process, by thread)`,
    );
    report.info('create.cpu_ceiling', ceilingText(gateCpu, bareCpu));
    const errors = rounds.gate.reduce((s, r) => s + r.errors, 0);
    report.value(
      'create.http_errors',
      errors,
      '',
      { op: '==', value: 0 },
      `of ${cfg.rounds * cfg.createN} POSTs not answered 201${errors ? `; last: ${lastError}` : ''}`,
    );
  } finally {
    await closers.close();
  }
}
