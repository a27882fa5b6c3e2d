import { randomUUID } from 'node:crypto';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { GateClient } from '../../src/client/gate-client';
import { refundBody } from '../support/gate-fixtures';

/**
 * `gate dev` runs the API and the worker in one process: the API's client shares the
 * worker's connection and, with GATE_EAGER_START=on, asks for eager starts, so a new
 * gate's first task is handed to that worker by the start call itself. The gate must
 * behave exactly as any other.
 */
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let client: Client;
const taskQueue = `eager-${randomUUID()}`;

beforeAll(async () => {
  connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { codePath: process.env.GATE_TEST_WORKFLOW_BUNDLE! },
    activities: {
      recordAuditEvents: async () => ({ webhook_receivers: 0 }),
      deliverWebhooks: async () => ({ delivered: [] }),
    },
  });
  running = worker.run();
  client = new Client({ connection });
});
afterAll(async () => {
  worker.shutdown();
  await running;
  await connection.close();
});

const body = (): Record<string, unknown> => refundBody('eager');

/** Creates through GateClient and reports whether Temporal started the gate eagerly. */
async function create(gates: GateClient): Promise<{ id: string; sha: string; eager: boolean }> {
  const starts: Promise<WorkflowHandle>[] = [];
  const start = client.workflow.start.bind(client.workflow);
  const spy = jest.spyOn(client.workflow, 'start').mockImplementation((...a: Parameters<typeof start>) => {
    const p = start(...a);
    starts.push(p);
    return p;
  });
  try {
    const { request } = await gates.create(body(), { agentId: 'agent-1' });
    const handle = (await starts[0]) as WorkflowHandle & { eagerlyStarted?: boolean };
    return { id: request.request_id, sha: request.payload_sha256, eager: handle.eagerlyStarted === true };
  } finally {
    spy.mockRestore();
  }
}

it('starts a gate eagerly on the worker that shares the client connection, and the gate runs as usual', async () => {
  const gates = new GateClient(client, { taskQueue, eagerStart: true });
  const g = await create(gates);
  expect(g.eager).toBe(true);
  await gates.decide(g.id, { decision_id: 'd1', reviewer_id: 'rev-1', decision: 'approve', payload_sha256: g.sha });
  expect((await gates.consume(g.id, 'agent-1')).args).toEqual({ charge: 'ch_1', amount: 4000 });
  expect((await client.workflow.getHandle(g.id).result()).status).toBe('consumed');
});

it('starts through the task queue when eager starts are not asked for', async () => {
  const gates = new GateClient(client, { taskQueue });
  const g = await create(gates);
  expect(g.eager).toBe(false);
  expect((await gates.get(g.id)).status).toBe('requested');
});
