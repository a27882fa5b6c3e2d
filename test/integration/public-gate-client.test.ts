import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { GateClient, openAuditStore, type OpenedAuditStore } from '../../src/client';
import { KeyStore } from '../../src/store/key-store';
import { startApiStack, type ApiStack } from '../support/api-stack';
import { refundBody } from '../support/gate-fixtures';
import { testClient } from '../support/temporal';
import { waitFor } from '../support/wait';
import { getGateQuery } from '../../src/workflow/gate/messages';

/**
 * A library user builds GateClient from `approval-gate/client` alone (src/client/index.ts)
 * and gets the path the API takes: the caller writes the gate's audit events into the
 * workers' store, and the gate runs no store activity for them.
 */
let stack: ApiStack;
let client: Client;
let connection: Connection;
let audit: OpenedAuditStore;
const keys = { agent: '', reviewer: '' };

beforeAll(async () => {
  stack = await startApiStack('public-client');
  ({ client, connection } = await testClient());
  const store = new KeyStore(stack.db);
  await store.migrate();
  keys.agent = (await store.create('agent', 'agent-1')).key;
  keys.reviewer = (await store.create('reviewer', 'rev-1')).key;
  audit = await openAuditStore({ dataDir: stack.dataDir });
});
afterAll(async () => {
  await audit?.close();
  await connection?.close();
  await stack?.stop();
});

async function post(path: string, key: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.api.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Waits until the gate's first workflow task has run (its query answers). A decision sent
 * before that joins the first task, one task fewer, so both lifecycles wait for it and
 * their histories compare task for task.
 */
function firstTaskRan(id: string): Promise<unknown> {
  const gate = client.workflow.getHandle(id);
  return waitFor(`the first task of ${id}`, () =>
    gate.query(getGateQuery).then(
      () => true,
      () => false,
    ),
  );
}

/** Create, approve and consume over HTTP: the API's own GateClient. */
async function throughApi(tag: string): Promise<string> {
  const created = await post('/v1/approvals', keys.agent, refundBody(tag));
  const id = String(created.request_id);
  await firstTaskRan(id);
  await post(`/v1/approvals/${id}/decision`, keys.reviewer, {
    decision: 'approve',
    payload_sha256: created.payload_sha256,
  });
  await post(`/v1/approvals/${id}/consume`, keys.agent, {});
  await client.workflow.getHandle(id).result();
  return id;
}

/** The same lifecycle through a GateClient the caller configured. */
async function throughClient(gates: GateClient, tag: string): Promise<string> {
  const { request } = await gates.create(refundBody(tag), { agentId: 'agent-1', tenant: 'default' });
  const id = request.request_id;
  await firstTaskRan(id);
  await gates.decide(id, {
    decision: 'approve',
    decision_id: randomUUID(),
    reviewer_id: 'rev-1',
    reviewer_roles: [],
    // How this service authenticated its reviewer, as the API records it from the key.
    reviewer_auth: { method: 'api_key', key_id: 'rev-1' },
    payload_sha256: request.payload_sha256,
  });
  await gates.consume(id, 'agent-1');
  await client.workflow.getHandle(id).result();
  return id;
}

/** How many activities and workflow tasks the gate's history holds. */
async function costOf(id: string): Promise<{ activities: number; workflowTasks: number }> {
  const h = await client.workflow.getHandle(id).fetchHistory();
  const types = (h.events ?? []).map((e) => e.eventType);
  const E = temporal.api.enums.v1.EventType;
  return {
    activities: types.filter((t) => t === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).length,
    workflowTasks: types.filter((t) => t === E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED).length,
  };
}

/** What a stored trail says, without the ids, times and hashes that differ from gate to gate. */
async function shapeOf(id: string) {
  return (await audit.list(id)).map((e) => ({
    event_type: e.event_type,
    actor_type: e.actor_type,
    actor_id: e.actor_id,
    data: Object.keys(e.data).sort(),
  }));
}

describe('GateClient from the public exports', () => {
  it('records the caller-written events as the API does, and the gate runs no more activities than under the API', async () => {
    const viaApi = await throughApi('public-api');
    const gates = new GateClient(client, { taskQueue: stack.worker.taskQueue, audit, webhookReceivers: 0 });
    const viaClient = await throughClient(gates, 'public-client');

    const shape = await shapeOf(viaClient);
    expect(shape.map((e) => e.event_type)).toEqual(['approval.requested', 'approval.approved', 'approval.consumed']);
    expect(shape).toEqual(await shapeOf(viaApi));
    expect((await gates.audit(viaClient)).store).toMatchObject({ matches_workflow: true, verified: true });
    expect(await costOf(viaClient)).toEqual(await costOf(viaApi));
    expect((await costOf(viaClient)).activities).toBe(0);
  });

  it('costs the gate a store activity per written batch when built without the store', async () => {
    const bare = new GateClient(client, { taskQueue: stack.worker.taskQueue });
    const id = await throughClient(bare, 'public-bare');
    const lean = await costOf(
      await throughClient(
        new GateClient(client, { taskQueue: stack.worker.taskQueue, audit, webhookReceivers: 0 }),
        'public-lean',
      ),
    );
    const cost = await costOf(id);
    expect(cost.activities).toBeGreaterThan(0);
    expect(cost.workflowTasks).toBeGreaterThan(lean.workflowTasks);
    // The gate wrote the same trail itself.
    expect((await shapeOf(id)).map((e) => e.event_type)).toEqual([
      'approval.requested',
      'approval.approved',
      'approval.consumed',
    ]);
  });
});
