import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { preloadModules } from '../../src/worker/bundle-options';
import { installWorkerRuntime } from '../../src/worker/runtime';
import type { SharedModules } from '../fixtures/bundle/shared-modules';

/**
 * What the gate's bundles preload (src/workflow/internal/shared-libraries.ts) is evaluated once per
 * worker and shared by its workflows, instead of being evaluated again by every new or
 * replayed one. Seen from inside a workflow on a real worker: the SDK freezes exactly the
 * preloaded modules.
 */
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
let connection: Connection;
let client: Client;
let native: NativeConnection;

beforeAll(async () => {
  installWorkerRuntime({ logLevel: 'error' });
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  native = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection });
});
afterAll(async () => {
  await connection.close();
  await native.close();
});

async function sharedIn(preload: string[]): Promise<SharedModules> {
  const taskQueue = `shared-modules-${randomUUID()}`;
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../fixtures/bundle/shared-modules'),
    preloadModules: preload,
    logger: quiet,
  });
  const worker = await Worker.create({ connection: native, taskQueue, workflowBundle });
  return worker.runUntil(
    client.workflow.execute<() => Promise<SharedModules>>('sharedModulesWorkflow', {
      taskQueue,
      workflowId: `shared-${randomUUID()}`,
    }),
  );
}

it("shares the SDK's workflow API and zod across workflows with the gate's preload", async () => {
  expect(await sharedIn(preloadModules())).toEqual({ workflowApi: true, zod: true });
}, 120_000);

it('evaluates both per workflow without it (the control: the check above can fail)', async () => {
  expect(await sharedIn([])).toEqual({ workflowApi: false, zod: false });
}, 120_000);
