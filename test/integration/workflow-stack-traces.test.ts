import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { GateClient } from '../../src/client/gate-client';
import { loadConfig } from '../../src/config';
import { tripDomain } from '../../examples/trip';
import { installWorkerRuntime } from '../../src/worker/runtime';
import { createGateWorker } from '../../src/worker/create-gate-worker';
import { refundBody } from '../support/gate-fixtures';

/**
 * The gate's own workers capture no stacks in workflow code (src/workflow/internal/stack-frames.ts):
 * the SDK's `__stack_trace` query answers without frames. GATE_WORKFLOW_STACK_TRACES=1
 * gives them back (the worker bundles without that module), so the query shows where the
 * gate waits.
 */
let connection: Connection;
let client: Client;

beforeAll(async () => {
  installWorkerRuntime({ logLevel: 'error' });
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection });
});
afterAll(async () => {
  await connection.close();
});

/** A pending gate on a worker with the given setting; returns what `__stack_trace` answers. */
async function stackOfPendingGate(stackTraces: boolean): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-stacks-'));
  const taskQueue = `stacks-${randomUUID()}`;
  const cfg = { ...loadConfig({ ...process.env, GATE_DATA_DIR: dataDir, GATE_TASK_QUEUE: taskQueue }) };
  const bundle = process.env.GATE_WORKFLOW_BUNDLE;
  process.env.GATE_WORKFLOW_BUNDLE = process.env.GATE_TEST_WORKFLOW_BUNDLE; // the suite's bundle, as production's prebuilt one
  try {
    const worker = await createGateWorker({ ...cfg, workflowStackTraces: stackTraces, domains: [tripDomain] });
    const running = worker.run();
    try {
      const gates = new GateClient(client, { taskQueue });
      const { request } = await gates.create(refundBody('stacks'), { agentId: 'agent-1' });
      const handle = client.workflow.getHandle(request.request_id);
      const stack = await handle.query<string>('__stack_trace');
      await handle.terminate('test done');
      return stack;
    } finally {
      await worker.shutdown();
      await running;
    }
  } finally {
    if (bundle === undefined) delete process.env.GATE_WORKFLOW_BUNDLE;
    else process.env.GATE_WORKFLOW_BUNDLE = bundle;
  }
}

it('answers the stack trace query without frames on a default worker', async () => {
  const stack = await stackOfPendingGate(false);
  expect(stack).not.toMatch(/\bat /);
  expect(stack).not.toMatch(/gate\/phases\.ts/);
}, 60_000);

it('shows where the gate waits with GATE_WORKFLOW_STACK_TRACES on (the control: the check above can fail)', async () => {
  const stack = await stackOfPendingGate(true);
  expect(stack).toMatch(/at .*src\/workflow\/gate\/phases\.ts:\d+:\d+\)/); // the decision wait
  expect(stack).toMatch(/src\/workflow\/gate\/approval-gate\.ts/);
}, 120_000);
