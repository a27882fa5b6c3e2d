import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { tripDomain } from '../../examples/trip';
import type { GateState } from '../../src/common/gate-state';
import type { RunView } from '../../src/workflow/agent-run/messages';
import { openSqlite, type Db } from '../../src/store/db';
import { createActivities } from '../../src/worker/activities';
import { getGateQuery } from '../../src/workflow/gate/messages';
import { decidePending, draftAndValidate, startRun, waitForRun } from '../support/run-harness';
import { slackDefaults, startSlackStandin, type SlackStandin } from '../support/slack-standin';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';
import { waitFor } from '../support/wait';

// An agent run's tool gate under no rule file: the worker's GATE_NOTIFY is told of it, as of
// a request created through the API that names no targets.

let slack: SlackStandin;
let db: Db;
let worker: RunningWorker;
let client: Client;
let connection: Connection;

beforeAll(async () => {
  slack = await startSlackStandin();
  db = openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gate-run-notices-')), 'gate.db'));
  const notify = slackDefaults(slack, 'slack:#trip-approvals');
  const { activities } = await createActivities({ db, domains: [tripDomain], notify });
  worker = await startTestWorker(activities);
  ({ client, connection } = await testClient());
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await connection?.close();
  await db?.close();
  await slack?.close();
});

it("tells the worker's GATE_NOTIFY of a run's tool gate, and ends the message when it is decided", async () => {
  const runId = await startRun(client, worker.taskQueue, [
    ...draftAndValidate(800000),
    { content: '', tool_calls: [{ id: 'c3', name: 'submit_trip_request', args: {} }] },
    { content: 'Submitted.' },
  ]);
  const pending = await waitForRun(client, runId, (v) => v.pending_approvals.length > 0);
  const requestId = pending.pending_approvals[0]!.request_id;
  const gate: GateState = await client.workflow.getHandle(requestId).query(getGateQuery);
  expect(gate.payload.notify).toEqual(['slack:#trip-approvals']);
  await waitFor('the message', () => slack.messages.some((m) => m.posted_to === '#trip-approvals'));
  expect(slack.messages.filter((m) => m.posted_to === '#trip-approvals')[0]!.text).toContain(requestId);

  await decidePending(client, runId, { decision: 'approve' });
  const done = await waitForRun(client, runId, (v: RunView) => v.status === 'completed');
  expect(done.final_answer).toBe('Submitted.');
  await waitFor('the ended message', () => slack.messages.find((m) => m.posted_to === '#trip-approvals')!.edits > 0);
}, 120_000);
