// The workers the bench runs in its own process: the production gate worker
// (createGateWorker), and the baseline worker for the bare workflows.
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../src/config';
import { createGateWorker } from '../src/worker/create-gate-worker';
import type { BareActivities } from './baseline-workflows';
import { dataDir, gateEnv, taskQueue, type BenchContext } from './context';
import { now } from './stats';
import { tripDomain } from '../examples/trip';

export interface RunningWorker {
  taskQueue: string;
  stop(): Promise<void>;
}

/** A worker's run(), with shutdown that waits for it. */
export function running(worker: Worker, queue: string, close: () => Promise<void>): RunningWorker {
  const run = worker.run().finally(close);
  return {
    taskQueue: queue,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run;
    },
  };
}

/**
 * The production gate worker from `createGateWorker(cfg)`: its workflow cache size
 * and bundle options, audit into a SQLite file of its own, no webhooks. Loads the run's
 * prebuilt bundle (createGateWorker reads GATE_WORKFLOW_BUNDLE from process.env; main sets it).
 */
export async function startGateWorker(
  ctx: BenchContext,
  part: string,
): Promise<RunningWorker & { env: NodeJS.ProcessEnv; connection: NativeConnection }> {
  const queue = taskQueue(part);
  const env = gateEnv(ctx, dataDir(ctx, part), queue);
  const w = await createGateWorker({ ...loadConfig(env), domains: [tripDomain] });
  const run = w.run();
  return {
    taskQueue: queue,
    env,
    connection: w.connection,
    async stop() {
      await w.shutdown();
      await run;
    },
  };
}

/** When each bare tool activity began, by key (performance.now() in this process). */
export type StartTimes = Map<string, number>;

/** The baseline worker: the bare workflows on a queue of their own; `bareTool` records its start. */
export async function startBaselineWorker(
  ctx: BenchContext,
  part: string,
): Promise<RunningWorker & { toolStarts: StartTimes; connection: NativeConnection }> {
  const queue = taskQueue(`bare-${part}`);
  const toolStarts: StartTimes = new Map();
  const activities: BareActivities = {
    async bareTool(key) {
      toolStarts.set(key, now());
      return 'done';
    },
  };
  const connection = await NativeConnection.connect({ address: ctx.server.address });
  const worker = await Worker.create({
    connection,
    namespace: ctx.cfg.namespace,
    taskQueue: queue,
    workflowBundle: { codePath: ctx.bundles.baseline },
    maxCachedWorkflows: loadConfig().workflowCacheSize, // the gate worker's cache size, so caching is not the difference
    activities,
  });
  return { ...running(worker, queue, () => connection.close()), toolStarts, connection };
}
