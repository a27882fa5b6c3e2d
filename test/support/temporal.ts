import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';

let runtimeInstalled = false;
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') }); // expected activity failures (ToolFailed) would flood the output
  } catch {
    /* already installed by another helper in this process */
  }
}

/** A client on the suite's dev server. Close its connection in afterAll. */
export async function testClient(): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  return { client: new Client({ connection }), connection };
}

export interface RunningWorker {
  taskQueue: string;
  worker: Worker;
  stop(): Promise<void>;
}

/**
 * Starts a worker on its own task queue (one per test file) with the pre-built bundle, or
 * with `codePath`, the bundle of another release (an upgrade test's old code).
 */
export async function startTestWorker(
  activities: object,
  taskQueue = `test-${randomUUID()}`,
  codePath = process.env.GATE_TEST_WORKFLOW_BUNDLE!,
): Promise<RunningWorker> {
  quietRuntime();
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { codePath },
    activities,
  });
  const running = worker.run();
  return {
    taskQueue,
    worker,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
