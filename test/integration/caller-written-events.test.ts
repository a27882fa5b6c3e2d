import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { GateClient } from '../../src/client/gate-client';
import { verifyChain } from '../../src/common/audit';
import type { AuditStore } from '../../src/store/audit-store';
import { approvalOf, refundBody, storeActivities } from '../support/gate-fixtures';
import { useAuditSuite } from '../support/run-harness';
import { startTestWorker } from '../support/temporal';

/**
 * A GateClient with the audit store (and no webhook receivers) writes the events its
 * decide and consume updates appended, which the gate hands back (CallerWrites), so an
 * external gate's lifecycle costs one store activity, at its end, instead of one per
 * update; with the caller's audit intents (recorded before it sends), none at all. The
 * store and the chain must still hold the same events, also when the caller died before
 * its write (recovery reads them from history) or the store refused the intents.
 */

let client: Client;
let audit: AuditStore;
useAuditSuite((c, a) => {
  client = c;
  audit = a;
});

async function eventTypes(id: string): Promise<string[]> {
  const h = await client.workflow.getHandle(id).fetchHistory();
  return (h.events ?? []).map((e) => String(temporal.api.enums.v1.EventType[e.eventType ?? 0]));
}

/** The store holds exactly the gate's chain, verified. */
async function expectStoreEqualsChain(id: string, types: string[]): Promise<void> {
  const stored = await audit.list(id);
  expect(stored.map((e) => e.event_type)).toEqual(types);
  expect(verifyChain(stored).ok).toBe(true);
  const view = await new GateClient(client, { taskQueue: 'unused', audit }).audit(id);
  expect(view.events.map((e) => e.event_id)).toEqual(stored.map((e) => e.event_id));
  expect(view.store).toMatchObject({ matches_workflow: true, verified: true });
}

const LIFECYCLE = ['approval.requested', 'approval.approved', 'approval.consumed'];

/** The audit intents the store still holds for a request. */
async function intentsOf(id: string) {
  return (await audit.staleIntents('9999-12-31T00:00:00.000Z', 10_000)).filter((i) => i.request_id === id);
}

describe('on the current code', () => {
  const taskQueue = `caller-${randomUUID()}`;
  let stop: () => Promise<void>;
  beforeAll(async () => ({ stop } = await startTestWorker(storeActivities(audit), taskQueue)));
  afterAll(() => stop());

  it('writes each update’s events when the update returns; the gate writes nothing itself', async () => {
    const gates = new GateClient(client, { taskQueue, audit, webhookReceivers: 0 });
    const { request } = await gates.create(refundBody('caller'), { agentId: 'agent-1' });
    const id = request.request_id;
    const decided = await gates.decide(id, approvalOf(request.payload_sha256));
    expect(decided).not.toHaveProperty('audit_events'); // the API's answer is unchanged
    expect((await audit.list(id)).map((e) => e.event_type)).toEqual(LIFECYCLE.slice(0, 2));
    expect(await eventTypes(id)).not.toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    const consumed = await gates.consume(id, 'agent-1');
    expect(consumed).not.toHaveProperty('audit_events');
    expect(consumed.args).toEqual({ charge: 'ch_1', amount: 4000 });
    expect((await audit.list(id)).map((e) => e.event_type)).toEqual(LIFECYCLE);
    await client.workflow.getHandle(id).result();
    const history = await eventTypes(id);
    // Every event came with the caller's audit intent: the gate does not send them again when it ends.
    expect(history).not.toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    expect(history.filter((t) => t === 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES')).toHaveLength(2); // approved, consumed
    await expectStoreEqualsChain(id, LIFECYCLE);
    expect(await intentsOf(id)).toEqual([]); // each intent went with its write
  });

  it('recovers what a caller that died after each start and update did not write, from the gate’s history', async () => {
    // The intents are recorded, then every write fails: what a process killed right after each answer leaves.
    const dying = Object.create(audit) as AuditStore;
    dying.settleIntent = async () => {
      throw new Error('killed');
    };
    const gates = new GateClient(client, { taskQueue, audit: dying, webhookReceivers: 0 });
    const { request } = await gates.create(refundBody('caller-died'), { agentId: 'agent-1' });
    const id = request.request_id;
    await gates.decide(id, approvalOf(request.payload_sha256));
    await gates.consume(id, 'agent-1');
    await client.workflow.getHandle(id).result();
    expect(await audit.list(id)).toEqual([]);
    expect(await eventTypes(id)).not.toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    expect(await intentsOf(id)).toHaveLength(3);
    // Young intents are left alone: their caller may still be at work.
    expect(await gates.recoverAuditIntents()).toMatchObject({ written: 0 });
    const healthy = new GateClient(client, { taskQueue, audit, webhookReceivers: 0 });
    expect(await healthy.recoverAuditIntents({ olderThanMs: 0 })).toMatchObject({ written: 3, failed: 0 });
    await expectStoreEqualsChain(id, LIFECYCLE);
    expect(await intentsOf(id)).toEqual([]);
  });

  it('loses nothing when the store refused the intents: the gate’s last batch carries the events', async () => {
    const down = Object.create(audit) as AuditStore;
    for (const m of ['appendMany', 'recordIntent', 'settleIntent'] as const)
      down[m] = async () => {
        throw new Error('store down');
      };
    const gates = new GateClient(client, { taskQueue, audit: down, webhookReceivers: 0 });
    const { request } = await gates.create(refundBody('caller-lost'), { agentId: 'agent-1' });
    await gates.decide(request.request_id, approvalOf(request.payload_sha256));
    expect(await audit.list(request.request_id)).toEqual([]);
    await gates.consume(request.request_id, 'agent-1');
    await client.workflow.getHandle(request.request_id).result();
    const history = await eventTypes(request.request_id);
    expect(history.filter((t) => t === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED')).toHaveLength(1);
    await expectStoreEqualsChain(request.request_id, LIFECYCLE);
  });

  it('drops the intent of a refused update, of a replayed key and of a start that never happened', async () => {
    const gates = new GateClient(client, { taskQueue, audit, webhookReceivers: 0 });
    const body = refundBody('caller-refused');
    const { request } = await gates.create(body, { agentId: 'agent-1' });
    const id = request.request_id;
    await expect(gates.consume(id, 'agent-1')).rejects.toMatchObject({ status: 409 }); // not approved yet
    expect((await gates.create(body, { agentId: 'agent-1' })).created).toBe(false);
    expect(await intentsOf(id)).toEqual([]);
    // A creator that died before its start: the intent names a gate Temporal never heard of.
    const ghost = `appr_ghost_${randomUUID()}`;
    await audit.recordIntent({ request_id: ghost, event: (await audit.list(id))[0]! });
    await audit.recordIntent({ request_id: ghost, update_id: 'consume_ghost' });
    expect(await gates.recoverAuditIntents({ olderThanMs: 0 })).toMatchObject({ dropped: 2, failed: 0 });
    expect(await intentsOf(ghost)).toEqual([]);
    expect(await audit.list(ghost)).toEqual([]);
  });

  it('keeps the intent of an update the open gate has not answered, and drops it once the gate has ended', async () => {
    const gates = new GateClient(client, { taskQueue, audit, webhookReceivers: 0 });
    const { request } = await gates.create(refundBody('caller-pending'), { agentId: 'agent-1' });
    const id = request.request_id;
    await audit.recordIntent({ request_id: id, update_id: 'decide_not_yet' });
    expect(await gates.recoverAuditIntents({ olderThanMs: 0 })).toMatchObject({ kept: 1 });
    await gates.cancel(id, 'agent-1');
    await client.workflow.getHandle(id).result();
    expect(await gates.recoverAuditIntents({ olderThanMs: 0 })).toMatchObject({ dropped: 1, kept: 0 });
    expect(await intentsOf(id)).toEqual([]);
  });

  it('leaves the writes to the gate for a client that may have webhook receivers', async () => {
    const gates = new GateClient(client, { taskQueue, audit });
    const { request } = await gates.create(refundBody('caller-hooks'), { agentId: 'agent-1' });
    await gates.decide(request.request_id, approvalOf(request.payload_sha256));
    await gates.consume(request.request_id, 'agent-1');
    await client.workflow.getHandle(request.request_id).result();
    const history = await eventTypes(request.request_id);
    // requested, approved and consumed: each workflow task that appended wrote its own batch,
    // unless the first write was still in flight when the next event came (one batch for both);
    // a caller-written lifecycle schedules one (the final batch).
    const batches = history.filter((t) => t === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED').length;
    expect(batches).toBeGreaterThanOrEqual(2);
    expect(batches).toBeLessThanOrEqual(3);
    await expectStoreEqualsChain(request.request_id, LIFECYCLE);
  });
});
