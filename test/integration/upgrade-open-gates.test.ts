import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/worker/activities';
import { verifyChain } from '../../src/common/audit';
import { prepareCreate } from '../../src/client/create-request';
import { startOptions } from '../../src/client/start-options';
import { GateClient } from '../../src/client/gate-client';
import { AuditStore } from '../../src/store/audit-store';
import { openSqlite, type Db } from '../../src/store/db';
import { getAuditQuery, getGateQuery } from '../../src/workflow/gate/messages';
import { CURRENT_PATCH_BASELINE } from '../../src/workflow/gate/patch-baseline';
import { unpackBundle } from '../replay/bundle-commit';
import { decidePending, draftAndValidate, startRun, submissionsOf, waitForRun } from '../support/run-harness';
import { refundBody } from '../support/gate-fixtures';
import { waitFor } from '../support/processes';
import { startTestWorker, testClient } from '../support/temporal';
import { tripDomain } from '../../examples/trip';

/**
 * Gates wait for days, so a deploy always meets open ones. This opens gates and an agent
 * run on the workflow code released before the batched trail and the local re-check
 * (commit f2c7a1f, its bundle checked in), stops that worker, and finishes them on
 * today's code: the patched() paths must keep the old histories valid.
 */
const OLD_RELEASE = 'f2c7a1f';

let client: Client;
let connection: Connection;
let db: Db;
let activities: Awaited<ReturnType<typeof createActivities>>['activities'];
const taskQueue = `upgrade-${randomUUID()}`;

beforeAll(async () => {
  ({ client, connection } = await testClient());
  db = openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'upgrade-')), 'gate.db'));
  ({ activities } = await createActivities({ db, domains: [tripDomain] }));
});
afterAll(async () => {
  await connection.close();
  await db.close();
});

it('finishes gates and a run opened on the previous release with the current code', async () => {
  const old = await startTestWorker(activities, taskQueue, unpackBundle(OLD_RELEASE));
  const gates = new GateClient(client, { taskQueue, audit: new AuditStore(db) });
  // Opened as that release's API did, or today's with GATE_DECLARE_PATCH_BASELINE=off: no
  // patch baseline in the input (the last test shows why).
  const { requestId, input } = prepareCreate(
    refundBody('upgrade'),
    { agentId: 'agent-1' },
    { declarePatchBaseline: false },
  );
  await client.workflow.start('approvalGateWorkflow', startOptions(requestId, input, taskQueue, randomUUID()));
  const runId = await startRun(client, taskQueue, [
    ...draftAndValidate(800000),
    { content: '', tool_calls: [{ id: 'c3', name: 'submit_trip_request', args: {} }] },
    { content: 'Submitted, budget {{value:c3.budget}} KRW.' },
  ]);
  await waitForRun(client, runId, (v) => v.pending_approvals.length > 0);
  expect((await client.workflow.getHandle(requestId).query(getGateQuery)).status).toBe('requested');
  await old.stop();

  const current = await startTestWorker(activities, taskQueue);
  try {
    await gates.decide(requestId, {
      decision_id: randomUUID(),
      reviewer_id: 'rev-1',
      decision: 'approve',
      payload_sha256: input.payload_sha256,
    });
    const consumed = await gates.consume(requestId, 'agent-1');
    expect(consumed.args).toEqual({ charge: 'ch_1', amount: 4000 });
    const gateRequest = await decidePending(client, runId, { decision: 'approve' });
    const run = await waitForRun(client, runId, (v) => v.status === 'completed');
    expect(run.final_answer).toBe('Submitted, budget 800,000 KRW.');
    expect(await submissionsOf(db, runId)).toHaveLength(1);

    // Every event of both trails reached the store, chained, on the old path and the new.
    for (const id of [requestId, gateRequest]) {
      const h = client.workflow.getHandle(id);
      await h.result();
      const store = await new AuditStore(db).list(id);
      expect(verifyChain(store).ok).toBe(true);
      const events = await h.query(getAuditQuery).catch(() => undefined);
      if (events) expect(store.map((e) => e.event_id)).toEqual(events.map((e) => e.event_id));
      expect(store.map((e) => e.event_type)).toContain('approval.consumed');
    }
  } finally {
    await current.stop();
  }
});

/**
 * The one mix the README rules out: today's API declares a patch baseline (the default), and
 * a worker of the first release, which records no patch marker at all, runs the gate's first
 * task. Today's code cannot tell that history from one of its own declared gates, so it does
 * not replay it: while such workers poll the task queue, GATE_DECLARE_PATCH_BASELINE must be
 * off (as in the test above).
 */
it("a declared gate whose first task a first-release worker ran does not replay on today's code", async () => {
  const queue = `upgrade-declared-${randomUUID()}`;
  const old = await startTestWorker(activities, queue, unpackBundle(OLD_RELEASE));
  const { requestId, input } = prepareCreate(refundBody('declared-on-first-release'), { agentId: 'agent-1' });
  expect(input.patch_baseline).toBe(CURRENT_PATCH_BASELINE);
  const handle = client.workflow.getHandle(requestId);
  try {
    await client.workflow.start('approvalGateWorkflow', startOptions(requestId, input, queue, randomUUID()));
    await waitFor('the first release to run the first task', async () =>
      (await handle.query(getGateQuery)).status === 'requested' ? true : undefined,
    );
  } finally {
    await old.stop();
  }
  const history = await handle.fetchHistory();
  await expect(
    Worker.runReplayHistory(
      { workflowBundle: { codePath: process.env.GATE_TEST_WORKFLOW_BUNDLE! } },
      history,
      requestId,
    ),
  ).rejects.toThrow(DeterminismViolationError);
  await handle.terminate('test over');
});
