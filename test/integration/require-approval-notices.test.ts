import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type Client, type Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { GateClient } from '../../src/client/gate-client';
import type { AuditEvent } from '../../src/common/audit';
import type { GateState } from '../../src/common/gate-state';
import { AuditStore } from '../../src/store/audit-store';
import { openSqlite, type Db } from '../../src/store/db';
import { approvalGatePlugin } from '../../src/worker';
import { getAuditQuery } from '../../src/workflow/gate/messages';
import * as activities from '../fixtures/library/activities';
import { waitFor } from '../support/wait';
import { slackDefaults, startSlackStandin, type SlackStandin } from '../support/slack-standin';
import { testClient } from '../support/temporal';

// A workflow's own gate (`requireApproval`) that tells reviewers: the workflow gets its
// outcome at once even when the channel is down, because the gate hands its ended notices
// to a detached noticeDeliveryWorkflow instead of waiting for them.

const taskQueue = `library-notices-${randomUUID()}`;
let db: Db;
let slack: SlackStandin;
let nativeConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let client: Client;
let connection: Connection;
let gates: GateClient;

beforeAll(async () => {
  slack = await startSlackStandin();
  db = openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gate-library-notices-')), 'gate.db'));
  nativeConnection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  // GATE_NOTIFY: who is told of a gate whose request and rule name nobody.
  const notify = slackDefaults(slack, 'slack:#wf-default');
  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../fixtures/library/workflows'),
    activities,
    plugins: [approvalGatePlugin({ db, webhookUrls: [], notify })],
  });
  running = worker.run();
  ({ client, connection } = await testClient());
  gates = new GateClient(client, { taskQueue, audit: new AuditStore(db) });
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await nativeConnection?.close();
  await connection?.close();
  await db?.close();
  await slack?.close();
});

const slackTo = (name: string) => slack.messages.filter((m) => m.posted_to === name);

it('returns the outcome at once while the channel is down, and ends every message afterwards', async () => {
  const requestId = `wf-notices-${randomUUID()}`;
  const handle = await client.workflow.start('refundWorkflow', {
    workflowId: `wf-${randomUUID()}`,
    taskQueue,
    args: [
      {
        order_id: 'N1',
        cents: 1200,
        request_id: requestId,
        notify: ['slack:#wf-refunds'],
        escalation: { levels: [{ after: '2s', notify: ['slack:#wf-escalations'] }] },
      },
    ],
  });
  await waitFor('both messages', () => slackTo('#wf-refunds').length === 1 && slackTo('#wf-escalations').length === 1);
  const gate: AuditEvent[] = await client.workflow.getHandle(requestId).query(getAuditQuery);
  expect(gate.find((e) => e.event_type === 'approval.escalated')?.data).toMatchObject({ level: 1, loop: 0 });

  slack.refuse('http_500');
  const state = (await gates.get(requestId)) as GateState;
  const decidedAt = Date.now();
  await gates.decide(requestId, {
    decision_id: randomUUID(),
    reviewer_id: 'alice',
    decision: 'approve',
    payload_sha256: state.payload_sha256,
  });
  const result = (await handle.result()) as { outcome: { status: string } };
  expect(result.outcome.status).toBe('approved');
  // A delivery retries for up to 60 s; the workflow did not wait for it.
  expect(Date.now() - decidedAt).toBeLessThan(20_000);

  slack.refuse(false);
  const notices = client.workflow.getHandle(`notices-${requestId}`);
  expect(await notices.result()).toEqual({ sent: 2, failed: 0 });
  expect([...slackTo('#wf-refunds'), ...slackTo('#wf-escalations')].map((m) => m.edits)).toEqual([1, 1]);
}, 120_000);

it('refuses a chain level at or after the TTL before the gate opens', async () => {
  const handle = await client.workflow.start('refundWorkflow', {
    workflowId: `wf-${randomUUID()}`,
    taskQueue,
    args: [{ order_id: 'N2', cents: 1200, ttl: '1m', escalation: { levels: [{ after: '1m' }] } }],
  });
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect(String((err as WorkflowFailedError).cause?.message)).toMatch(
    /escalation\.levels\[0\]\.after: level 1 fires 60 s after creation, at or after the request expires/,
  );
}, 60_000);

it("tells the worker's GATE_NOTIFY of a gate whose request names nobody, and not of one that names none", async () => {
  const start = (orderId: string, requestId: string, extra: Record<string, unknown> = {}) =>
    client.workflow.start('refundWorkflow', {
      workflowId: `wf-${randomUUID()}`,
      taskQueue,
      args: [{ order_id: orderId, cents: 900, request_id: requestId, ...extra }],
    });
  const told = `wf-default-${randomUUID()}`;
  const silent = `wf-silent-${randomUUID()}`;
  const handles = [await start('N3', told), await start('N4', silent, { notify: [] })];
  await waitFor('the default message', () => slackTo('#wf-default').length === 1);
  expect(((await gates.get(told)) as GateState).payload.notify).toEqual(['slack:#wf-default']);
  expect(slackTo('#wf-default')[0]!.text).toContain(told);
  const quiet = (await gates.get(silent)) as GateState;
  expect(quiet.payload.notify).toBeUndefined(); // an empty list on the request means nobody

  for (const id of [told, silent]) {
    const state = (await gates.get(id)) as GateState;
    await gates.decide(id, {
      decision_id: randomUUID(),
      reviewer_id: 'alice',
      decision: 'reject',
      reason: 'not this one',
      payload_sha256: state.payload_sha256,
    });
  }
  for (const h of handles)
    expect(((await h.result()) as { outcome: { status: string } }).outcome.status).toBe('denied');
  expect(slackTo('#wf-default')).toHaveLength(1);
}, 120_000);
