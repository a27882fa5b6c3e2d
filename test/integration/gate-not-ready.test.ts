import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { GateClient } from '../../src/client/gate-client';
import { AuditStore } from '../../src/store/audit-store';
import { openSqlite } from '../../src/store/db';
import { storeActivities } from '../support/gate-fixtures';
import { waitFor } from '../support/wait';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';

/**
 * A decision sent while the gate's workflow task fails is refused by the server before the
 * gate sees it (WorkflowNotReady: "unexpected workflow task failure", or "Workflow Task in
 * failed state"). It happens for a moment when a decision meets a gate handing over to its
 * next execution under a flood of signals, and for as long as a bug fails every task.
 * GateClient retries it within its decision wait and then sends it as a signal, which the
 * server records at once: the gate applies it when a fixed worker runs its task, and the
 * caller is told it is accepted and pending (the API's 202). It was an unexplained error
 * (the API's 500) before, then a 503 gate_unavailable.
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

it('accepts by signal, after retrying, a decision on a gate whose workflow task keeps failing', async () => {
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
    const gates = new GateClient(client, { taskQueue: worker.taskQueue, decisionWaitMs: 3000 });
    const started = Date.now();
    const decisionId = randomUUID();
    const outcome = await gates.decide(id, {
      decision_id: decisionId,
      reviewer_id: 'rev-1',
      decision: 'approve',
      payload_sha256: '0'.repeat(64),
    });
    expect(outcome).toMatchObject({ pending: true, code: 'decision_accepted', decision_id: decisionId });
    // Retried within the client's wait before it went by signal, not sent at the first refusal.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    // Recorded by the server, for the gate to apply once a worker can run its task: in the history once the
    // task that was running when it came has failed (until then the server holds it beside the history).
    await waitFor(
      'the decision in the gate’s history',
      async () => {
        const { events } = await h.fetchHistory();
        return (events ?? []).some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'decide');
      },
      60_000,
      500,
    );
  } finally {
    await h.terminate('test over');
  }
});
