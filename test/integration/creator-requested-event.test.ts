import type { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { GateClient } from '../../src/client/gate-client';
import { AuditStore } from '../../src/store/audit-store';
import { openDb, type Db } from '../../src/store/db';
import { refundBody, storeActivities } from '../support/gate-fixtures';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';

/**
 * A creator with the audit store writes the gate's `approval.requested` event itself, so
 * a new gate schedules no store write in its first task. The store and the gate's chain
 * must still hold the same events, also when the creator's write was lost.
 */
let client: Client;
let connection: Connection;
let db: Db;
let audit: AuditStore;
let worker: RunningWorker;

beforeAll(async () => {
  ({ client, connection } = await testClient());
  db = openDb({ sqliteFile: ':memory:' });
  audit = new AuditStore(db);
  await audit.migrate();
  worker = await startTestWorker(storeActivities(audit));
});
afterAll(async () => {
  await worker.stop();
  await connection.close();
  await db.close();
});

const body = (): Record<string, unknown> => refundBody('creator-event');

async function history(id: string): Promise<string[]> {
  const h = await client.workflow.getHandle(id).fetchHistory();
  return (h.events ?? []).map((e) => String(temporal.api.enums.v1.EventType[e.eventType ?? 0]));
}

async function lifecycle(gates: GateClient): Promise<string> {
  const { request } = await gates.create(body(), { agentId: 'agent-1' });
  const id = request.request_id;
  const m = { decision: 'approve' as const, payload_sha256: request.payload_sha256 };
  await gates.decide(id, { ...m, decision_id: 'd1', reviewer_id: 'rev-1' });
  await gates.consume(id, 'agent-1');
  await client.workflow.getHandle(id).result();
  return id;
}

it('writes approval.requested at creation and schedules no store write in the first task', async () => {
  const gates = new GateClient(client, { taskQueue: worker.taskQueue, audit, webhookReceivers: 0 });
  const { request } = await gates.create(body(), { agentId: 'agent-1' });
  const stored = await audit.list(request.request_id);
  expect(stored.map((e) => e.event_type)).toEqual(['approval.requested']); // before any worker task
  const live = await gates.get(request.request_id); // answered by the gate: its first task has run
  expect(live.status).toBe('requested');
  expect(await history(request.request_id)).not.toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
  const view = await gates.audit(request.request_id);
  expect(view.events[0]).toEqual(stored[0]);
  expect(view.store).toMatchObject({ matches_workflow: true, verified: true, lagging: 0 });
});

it('keeps the store and the chain equal through a whole lifecycle', async () => {
  const gates = new GateClient(client, { taskQueue: worker.taskQueue, audit, webhookReceivers: 0 });
  const id = await lifecycle(gates);
  const view = await gates.audit(id);
  expect(view.events.map((e) => e.event_type)).toEqual([
    'approval.requested',
    'approval.approved',
    'approval.consumed',
  ]);
  expect(view.store).toMatchObject({ count: 3, matches_workflow: true, verified: true });
  expect(view.verified).toBe(true);
});

it('loses nothing when the creator could not write: the gate sends the event with its next batch', async () => {
  const failing = Object.create(audit) as AuditStore;
  failing.appendMany = async () => {
    throw new Error('store down');
  };
  const gates = new GateClient(client, { taskQueue: worker.taskQueue, audit: failing, webhookReceivers: 0 });
  const id = await lifecycle(gates);
  const stored = await audit.list(id);
  expect(stored.map((e) => e.event_type)).toEqual(['approval.requested', 'approval.approved', 'approval.consumed']);
  const view = await new GateClient(client, { taskQueue: worker.taskQueue, audit }).audit(id);
  expect(view.store).toMatchObject({ count: 3, matches_workflow: true, verified: true });
});

it('leaves the first event to the gate when webhook receivers are not known to be absent', async () => {
  const gates = new GateClient(client, { taskQueue: worker.taskQueue, audit });
  const { request } = await gates.create(body(), { agentId: 'agent-1' });
  await gates.get(request.request_id);
  const events = await history(request.request_id);
  expect(events).toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
});
