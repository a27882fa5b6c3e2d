import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { GateClient } from '../../src/client/gate-client';
import { AuditStore } from '../../src/store/audit-store';
import { openSqlite, type Db } from '../../src/store/db';
import type { GateState } from '../../src/common/gate-state';
import { approvalGatePlugin } from '../../src/worker';
import * as activities from '../fixtures/library/activities';
import { testClient } from '../support/temporal';

const taskQueue = `library-${randomUUID()}`;
let db: Db;
let nativeConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let client: Client;
let connection: Connection;
let gates: GateClient;

beforeAll(async () => {
  db = openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gate-library-')), 'gate.db'));
  nativeConnection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../fixtures/library/workflows'),
    activities,
    plugins: [approvalGatePlugin({ db, webhookUrls: [] })],
  });
  running = worker.run();
  ({ client, connection } = await testClient());
  gates = new GateClient(client, { taskQueue, audit: new AuditStore(db) });
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await nativeConnection?.close();
  await connection?.close();
  await db?.close();
});

const start = (type: string, input: Record<string, unknown> = {}, id = `wf-${randomUUID()}`) =>
  client.workflow.start(type, { workflowId: id, taskQueue, args: [{ order_id: 'A1', cents: 1200, ...input }] });

/** The gate the workflow opened, once it is listed and running. */
async function pendingGate(requestId: string): Promise<GateState> {
  for (let i = 0; i < 200; i++) {
    const v = await gates.get(requestId).catch(() => undefined);
    if (v && !v.stale && v.status === 'requested') return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gate ${requestId} never became pending`);
}

const decide = (g: GateState, decision: 'approve' | 'reject' | 'modify', extra: Record<string, unknown> = {}) =>
  gates.decide(g.request_id, {
    decision_id: randomUUID(),
    reviewer_id: 'alice',
    decision,
    payload_sha256: g.payload_sha256,
    ...extra,
  });

/** A Date.now()-like 13-digit number that passes the Luhn check (one in ten does). */
function luhnValidTimestamp(): string {
  for (let ms = Date.now(); ; ms++) {
    let sum = 0;
    const s = String(ms);
    for (let i = s.length - 1, dbl = false; i >= 0; i--, dbl = !dbl) {
      let d = Number(s[i]);
      if (dbl) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    if (sum % 10 === 0) return s;
  }
}

describe('requireApproval from a workflow of your own', () => {
  it('opens the gate of a workflow whose id carries a Luhn-valid Date.now() timestamp (not a card number)', async () => {
    // Regression: the default request id `<workflow id>-approval-1` was refused as carrying a card number.
    const h = await start('refundWorkflow', { order_id: 'T1' }, `refund-${luhnValidTimestamp()}`);
    const g = await pendingGate(`${h.workflowId}-approval-1`);
    expect(g.payload.correlation_id).toBe(h.workflowId);
    await h.cancel();
  });

  it('opens an ordinary gate named after the workflow and continues with the approved args', async () => {
    const h = await start('refundWorkflow');
    const g = await pendingGate(`${h.workflowId}-approval-1`);
    expect(g.payload).toMatchObject({
      correlation_id: h.workflowId,
      agent_id: 'refundWorkflow',
      action: 'refund.create',
      args: { order_id: 'A1', cents: 1200 },
    });
    expect(g.executor).toBe('workflow');
    const listed = await gates.list({ status: 'requested' });
    expect(listed.map((s) => s.request_id)).toContain(g.request_id);
    await decide(g, 'approve', { note: 'ok' });
    const r = await h.result();
    expect(r.outcome).toEqual({
      status: 'approved',
      request_id: g.request_id,
      args: { order_id: 'A1', cents: 1200 },
      args_sha256: g.final_args_sha256,
      payload_sha256: g.payload_sha256,
      decided_by: 'alice',
      approvers: ['alice'],
      modified: false,
    });
    expect(r.refunded).toBe('refunded 1200 cents on A1');
    const after = await gates.get(g.request_id);
    expect(after).toMatchObject({ status: 'consumed', consumed_by: h.workflowId });
    const trail = await gates.audit(g.request_id);
    expect(trail.events.map((e) => e.event_type)).toEqual([
      'approval.requested',
      'approval.approved',
      'approval.consumed',
    ]);
    // Consumed by being returned: nobody can take it again over the API.
    await expect(gates.consume(g.request_id, 'refundWorkflow')).rejects.toMatchObject({ status: 409 });
  });

  it('hands over a reviewer modification as the args and says so', async () => {
    const h = await start('refundWorkflow', { order_id: 'A2' });
    const g = await pendingGate(`${h.workflowId}-approval-1`);
    await decide(g, 'modify', { args: { cents: 500 } });
    const r = await h.result();
    expect(r.outcome).toMatchObject({ status: 'approved', args: { order_id: 'A2', cents: 500 }, modified: true });
    expect(r.refunded).toBe('refunded 500 cents on A2');
  });

  it('resolves denied with the reason, and the workflow decides what to do', async () => {
    const h = await start('refundWorkflow', { order_id: 'A3' });
    const g = await pendingGate(`${h.workflowId}-approval-1`);
    await decide(g, 'reject', { reason: 'order already refunded by hand' });
    expect((await h.result()).outcome).toEqual({
      status: 'denied',
      request_id: g.request_id,
      reason: 'order already refunded by hand',
      decided_by: 'alice',
    });
  });

  it('resolves expired when nobody decides before the ttl', async () => {
    const h = await start('refundWorkflow', { order_id: 'A4', ttl: '1s' });
    expect((await h.result()).outcome).toEqual({ status: 'expired', request_id: `${h.workflowId}-approval-1` });
  });

  it('cancels the pending gate when the workflow is cancelled', async () => {
    const h = await start('refundWorkflow', { order_id: 'A5' });
    const g = await pendingGate(`${h.workflowId}-approval-1`);
    await h.cancel();
    await h.result().catch(() => undefined);
    for (let i = 0; i < 100 && (await gates.get(g.request_id)).status === 'requested'; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await gates.get(g.request_id)).status).toBe('cancelled');
  });

  it('never hands out one request id twice: a second workflow naming it gets cancelled, not the approval', async () => {
    const requestId = `refund-fixed-${randomUUID()}`;
    const first = await start('refundWorkflow', { order_id: 'A6', request_id: requestId });
    await decide(await pendingGate(requestId), 'approve');
    expect((await first.result()).outcome.status).toBe('approved');
    const second = await start('refundWorkflow', { order_id: 'A6', request_id: requestId });
    const r = await second.result();
    expect(r.outcome).toMatchObject({ status: 'cancelled', request_id: requestId });
    expect(r.refunded).toBeUndefined();
    expect([...activities.refunds.keys()].filter((k) => k === requestId)).toHaveLength(1);
  });

  it('numbers the default request ids per run, deterministically', async () => {
    const h = await start('twoApprovalsWorkflow');
    expect(await h.result()).toEqual([`${h.workflowId}-approval-1`, `${h.workflowId}-approval-2`]);
    // The recorded history replays on the same code without a determinism error.
    const history = await h.fetchHistory();
    await Worker.runReplayHistory(
      { workflowsPath: require.resolve('../fixtures/library/workflows'), plugins: [approvalGatePlugin({ db })] },
      history,
      h.workflowId,
    );
  });

  it('fails the workflow with InvalidInput before opening a gate for a request that is not valid evidence', async () => {
    const h = await start('badRequestWorkflow');
    const err = await h.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toMatchObject({ type: 'InvalidInput' });
    expect(String((err as WorkflowFailedError).cause?.message)).toMatch(/action.*namespaced verb/);
  });
});

describe('gatedActivities: several of your activities gated at once', () => {
  it('runs each gated activity only after its own approval, and not after a rejection', async () => {
    const h = await start('gatedOpsWorkflow', { order_id: 'G1', invoice_id: 'inv_G1' });
    const refundId = `${h.workflowId}-approval-1`;
    await decide(await pendingGate(refundId), 'approve');
    const voidId = `${h.workflowId}-approval-2`;
    const voidGate = await pendingGate(voidId);
    expect(voidGate.payload).toMatchObject({ action: 'invoice.void', args: { invoice_id: 'inv_G1' } });
    await decide(voidGate, 'reject', { reason: 'the invoice is paid' });
    expect(await h.result()).toEqual({
      refund: expect.objectContaining({ status: 'executed', request_id: refundId, result: 'refunded 700 cents on G1' }),
      voided: expect.objectContaining({ status: 'denied', request_id: voidId, reason: 'the invoice is paid' }),
    });
    expect(activities.refunds.get(refundId)).toEqual({ order_id: 'G1', cents: 700, calls: 1 });
    expect(activities.voided.has(voidId)).toBe(false);
  });
});

describe('withApproval around an activity of your own', () => {
  it('runs the activity once after approval, keyed by the request id', async () => {
    const h = await start('gatedRefundWorkflow', { order_id: 'B1' });
    const requestId = `${h.workflowId}-approval-1`;
    await decide(await pendingGate(requestId), 'approve');
    expect(await h.result()).toMatchObject({
      status: 'executed',
      request_id: requestId,
      args: { order_id: 'B1', cents: 1200 },
      result: 'refunded 1200 cents on B1',
      decided_by: 'alice',
    });
    expect(activities.refunds.get(requestId)).toEqual({ order_id: 'B1', cents: 1200, calls: 1 });
    const trail = await gates.audit(requestId);
    expect(trail.events.map((e) => e.event_type)).toContain('snapshot.verified');
  });

  it('does not run the activity after a rejection', async () => {
    const h = await start('gatedRefundWorkflow', { order_id: 'B2' });
    const requestId = `${h.workflowId}-approval-1`;
    await decide(await pendingGate(requestId), 'reject', { reason: 'no' });
    expect(await h.result()).toMatchObject({ status: 'denied', reason: 'no' });
    expect(activities.refunds.has(requestId)).toBe(false);
  });

  it('ends invalidated, a policy block, when the recheck finds the approval no longer holds', async () => {
    const h = await start('gatedRefundWorkflow', { order_id: 'B3' });
    const requestId = `${h.workflowId}-approval-1`;
    const g = await pendingGate(requestId);
    activities.closedOrders.add('B3');
    await decide(g, 'approve');
    expect(await h.result()).toEqual({
      status: 'invalidated',
      request_id: requestId,
      reason: 'order B3 was refunded elsewhere meanwhile',
    });
    expect(activities.refunds.has(requestId)).toBe(false);
    expect((await gates.get(requestId)).status).toBe('invalidated');
  });
});
