import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { GateClient } from '../../src/client/gate-client';
import { GateError } from '../../src/client/gate-error';
import { AuditStore } from '../../src/store/audit-store';
import { openSqlite } from '../../src/store/db';
import { storeActivities } from '../support/gate-fixtures';
import { waitFor } from '../support/processes';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';

/**
 * A decision sent while the gate's workflow task fails is refused by the server before the
 * gate sees it (WorkflowNotReady: "unexpected workflow task failure", or "Workflow Task in
 * failed state"). It happens for a moment when a decision meets a gate handing over to its
 * next execution under a flood of signals, and for as long as a bug fails every task.
 * GateClient retries it within its update budget and then answers 503 gate_unavailable,
 * safe to retry; it was an unexplained error (the API's 500) before.
 */
let client: Client;
let connection: Connection;
let worker: RunningWorker;

beforeAll(async () => {
  ({ client, connection } = await testClient());
  worker = await startTestWorker(storeActivities(new AuditStore(openSqlite(':memory:'))));
});
afterAll(async () => {
  await worker.stop();
  await connection.close();
});

it('answers 503 gate_unavailable, after retrying, to a decision on a gate whose workflow task keeps failing', async () => {
  // An input without its payload: the gate's first task throws a TypeError, a bug, so Temporal retries the task.
  const id = `appr_notready_${randomUUID().slice(0, 8)}`;
  const h = await client.workflow.start('approvalGateWorkflow', {
    workflowId: id,
    taskQueue: worker.taskQueue,
    args: [{}],
  });
  try {
    // From its third failed attempt on, the server refuses updates at once instead of holding them.
    await waitFor(
      'the gate’s third failed workflow task',
      async () => ((await h.describe()).raw.pendingWorkflowTask?.attempt ?? 0) >= 3,
      60_000,
    );
    const gates = new GateClient(client, { taskQueue: worker.taskQueue, updateTimeoutMs: 3000 });
    const started = Date.now();
    const err = await gates
      .decide(id, {
        decision_id: randomUUID(),
        reviewer_id: 'rev-1',
        decision: 'approve',
        payload_sha256: '0'.repeat(64),
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GateError);
    expect(err).toMatchObject({ status: 503, code: 'gate_unavailable' });
    expect((err as GateError).message).toMatch(/workflow task failed/);
    // Retried within the client's budget before it gave up, not refused at the first answer.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  } finally {
    await h.terminate('test over');
  }
});
