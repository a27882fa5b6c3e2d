// Section `pending`: many gates waiting at once. The gate worker runs as its own process
// (`gate worker`) so its memory can be read from /proc. Decisions are timed on an idle
// system first, then with the queue full on three groups: the newest gates (in the
// worker's cache), evicted ones whose execution the server has just loaded (a describe
// first, untimed), and the oldest (evicted, and out of the server's cache too once the
// queue outgrows it); lists are timed through the API. The server's latency metrics are
// read around a batch of each group's decisions after the timed ones (bench/pending-groups.ts).
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config';
import { startBenchApi, type BenchApi } from './api';
import { dataDir, gateEnv, progress, taskQueue, type BenchContext } from './context';
import { AGENT_ID, apiGateClient, retryTransient } from './gate-requests';
import { approveEach, fill, timeList, type Decisions, type GateRef } from './pending-phases';
import { reportPending } from './pending-report';
import { RssSampler } from './rss';
import {
  batchGroups,
  FULL_GROUPS,
  fullQueueGroups,
  groupMeter,
  newTally,
  perGroup,
  serverTimeMeter,
} from './pending-groups';
import { waitForQuietServer, waitUntilSettled } from './settle';
import { now, sleep } from './stats';
import { freePort } from './temporal-server';
import { spawnWorkerProcess } from './worker-process';

/** With TEMPORAL_ADDRESS, the gates left waiting are terminated by one batch job, so a shared server is not left with thousands of them. */
async function terminateLeftovers(ctx: BenchContext, queue: string): Promise<void> {
  await ctx.client.workflowService.startBatchOperation({
    namespace: ctx.cfg.namespace,
    jobId: `bench-cleanup-${randomUUID()}`,
    visibilityQuery: `TaskQueue = '${queue}' AND ExecutionStatus = 'Running'`,
    reason: 'approval-gate bench cleanup',
    terminationOperation: {},
  });
  progress(`pending: batch termination of the gates left on ${queue} started`);
}

export async function pendingSection(ctx: BenchContext): Promise<void> {
  const { client, cfg, report } = ctx;
  const queue = taskQueue('pending');
  // The worker's Prometheus endpoint: its sticky cache counters say which decisions found their gate cached.
  const workerMetrics = `127.0.0.1:${await freePort()}`;
  const env = gateEnv(ctx, dataDir(ctx, 'pending'), queue, { GATE_WORKER_METRICS_ADDRESS: workerMetrics });
  const cacheSize = loadConfig(env).workflowCacheSize;
  progress('pending: starting the gate worker process');
  const worker = await spawnWorkerProcess(env);
  const workerRss = new RssSampler(worker.pid).start();
  const serverRss = ctx.server.processes.map((p) => ({ ...p, rss: new RssSampler(p.pid).start() }));
  let api: BenchApi | undefined;
  const gates = apiGateClient(client, queue, env.GATE_DATA_DIR!);
  const check = (): void => {
    ctx.server.check();
    if (worker.exited()) throw new Error(`the gate worker process (pid ${worker.pid}) exited:\n${worker.output()}`);
  };
  // Around each timed decision: cache hits, CPU (bench process, server, worker), the worker's task latencies.
  const metered = groupMeter({
    workerMetrics: `http://${workerMetrics}/metrics`,
    serverPids: ctx.server.pids,
    workerPid: worker.pid,
  });
  // Around a batch of each group's decisions, untimed: the server's latency metrics.
  const serverTimed = serverTimeMeter(ctx.server.metricsUrl);
  const decisions = (): Decisions => ({ latencies: [], failures: [] });
  const decided = perGroup(decisions);
  const batchDecided = decisions(); // the server-time batches' approvals: untimed, but each must succeed
  const groups = perGroup(newTally);
  const settle = (probe: GateRef[], count: number): Promise<void> =>
    waitUntilSettled(
      client,
      cfg.namespace,
      queue,
      probe.slice(-20).map((g) => g.id),
      { timeoutMs: Math.max(300_000, count * 100), onProgress: progress, check },
    );
  const serverQuiet = () => waitForQuietServer(ctx.server.pids, { onProgress: progress, check });
  try {
    api = await startBenchApi(env);
    // (a) an idle system: a few gates, settled, approved one at a time (the first few untimed:
    // a fresh worker process compiles its code paths on the first decisions), then as many
    // again for the server-time batch.
    const warm = 5;
    const d = cfg.decisions;
    const idleAll = (await fill(client, gates, 'idle', 2 * d + warm, 2 * d + warm, check)).gates;
    const [idleRefs, idleBatch] = [idleAll.slice(warm, warm + d), idleAll.slice(warm + d)];
    await settle(idleAll, idleAll.length);
    await approveEach(gates, idleAll.slice(0, warm), check);
    await sleep(2000);
    const idleQuiet = await serverQuiet();
    for (const g of idleRefs) await metered(groups.idle, () => approveEach(gates, [g], check, decided.idle));
    await serverTimed(groups.idle, idleBatch.length, () => approveEach(gates, idleBatch, check, batchDecided));
    await Promise.allSettled(idleAll.map((g) => gates.consume(g.id, AGENT_ID))); // let them finish: the idle gates are not part of the fill

    // (b) the fill, sampling RSS every second throughout.
    const filled = await fill(client, gates, 'fill', cfg.pending, cfg.fillC, check, {
      worker: workerRss,
      server: serverRss[0]?.rss,
    });
    progress('pending: waiting for the worker to catch up');
    const caughtUp = now();
    await settle(filled.gates, cfg.pending);
    const settledMs = now() - caughtUp;
    await sleep(5000);
    check();
    const rssAfterFill = workerRss.sample();
    const fullQuiet = await serverQuiet();

    // (c) decisions with the queue full, one gate of each group in turn: the newest (cached),
    // evicted gates read back into the server's cache first, and the oldest (cold on both).
    const [newest, evicted, oldest] = fullQueueGroups(filled.gates, d);
    const [batchNewest, batchEvicted, batchOldest] = batchGroups(filled.gates, d);
    const batches = { newest: batchNewest, evicted: batchEvicted, oldest: batchOldest };
    // A describe loads the execution into the server's cache without touching the worker,
    // so the evicted group's approvals price the worker's cache miss alone.
    const loadIntoServer = (ref: GateRef) => retryTransient(() => client.workflow.getHandle(ref.id).describe());
    // The catch-up does not run first tasks in creation order, so the newest gates are not
    // necessarily the last the worker touched: read each once (a query, as a reviewer's page
    // does before the decision), untimed, so they are the ones in its cache.
    for (const g of [...batches.newest, ...newest]) await gates.get(g.id);
    const full = { newest, evicted, oldest };
    for (let i = 0; i < d; i++)
      for (const group of FULL_GROUPS) {
        const ref = full[group][i];
        if (!ref) continue;
        if (group === 'evicted') await loadIntoServer(ref);
        await metered(groups[group], () => approveEach(gates, [ref], check, decided[group]));
      }
    // The server-time batches, one group after another; the evicted gates described first, outside the readings.
    for (const group of FULL_GROUPS) {
      const refs = batches[group];
      if (group === 'evicted') for (const ref of refs) await loadIntoServer(ref);
      await serverTimed(groups[group], refs.length, () => approveEach(gates, refs, check, batchDecided));
    }

    // (d) lists through the API with the queue full.
    const list50 = await timeList(api, 50, cfg.listN);
    const list500 = await timeList(api, 500, cfg.listN);
    workerRss.stop();
    serverRss.forEach((p) => p.rss.stop());
    reportPending(report, cfg, {
      cacheSize,
      workerPid: worker.pid,
      workerRss,
      serverRss,
      rssAfterFill,
      fillMs: filled.ms,
      settledMs,
      decided,
      batchDecided,
      quiet: { idle: idleQuiet, full: fullQuiet },
      groups,
      list50,
      list500,
    });
  } finally {
    workerRss.stop();
    serverRss.forEach((p) => p.rss.stop());
    if (ctx.server.external)
      await terminateLeftovers(ctx, queue).catch((err) =>
        progress(`pending: cleanup on ${queue} failed: ${String(err)}`),
      );
    await api?.close().catch(() => undefined);
    await gates.close().catch(() => undefined);
    await worker.stop();
  }
}
