import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import type { DecisionMessage } from '../../src/common/decision';
import type { GateInput } from '../../src/common/gate-state';
import { prepareCreate } from '../../src/client/create-request';
import { GateClient } from '../../src/client/gate-client';
import { startOptions } from '../../src/client/start-options';
import { AuditStore } from '../../src/store/audit-store';
import { openDb, type Db } from '../../src/store/db';
import { decideSignal } from '../../src/workflow/gate/messages';
import { refundBody, storeActivities } from '../support/gate-fixtures';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';
import { waitFor } from '../support/wait';

/**
 * A flood of messages must not grow one gate execution's history without bound: past
 * its history limit the gate continues as new, carrying its state, its whole audit chain
 * and its refusal count, and it still decides, expires and is listed as one gate.
 */
let client: Client;
let connection: Connection;
let db: Db;
let audit: AuditStore;
let worker: RunningWorker;
let gates: GateClient;

const LIMIT = 80; // history events per execution in these tests
const TENANT = 'acme'; // the tenant must survive the continuation too

beforeAll(async () => {
  ({ client, connection } = await testClient());
  db = openDb({ sqliteFile: ':memory:' });
  audit = new AuditStore(db);
  await audit.migrate();
  worker = await startTestWorker(storeActivities(audit));
  gates = new GateClient(client, { taskQueue: worker.taskQueue, audit });
});
afterAll(async () => {
  await worker.stop();
  await connection.close();
  await db.close();
});

async function openGate(ttlSeconds: number, over: Partial<GateInput> = {}): Promise<GateInput> {
  const body = refundBody('flood', { target: `ch_${randomUUID()}`, ttl_seconds: ttlSeconds });
  const { requestId, input } = prepareCreate(body, { agentId: 'agent-1' });
  const full: GateInput = { ...input, max_history_events: LIMIT, ...over };
  await client.workflow.start(
    'approvalGateWorkflow',
    startOptions(requestId, full, worker.taskQueue, randomUUID(), TENANT),
  );
  return full;
}

/** Bad decisions by signal (a stale payload hash): each is refused and, under the cap, audited. */
async function flood(id: string, n: number): Promise<void> {
  const handle = client.workflow.getHandle(id);
  for (let i = 0; i < n; i++) {
    const bad: DecisionMessage = {
      decision_id: `bad-${i}`,
      reviewer_id: 'mallory',
      decision: 'approve',
      payload_sha256: '0'.repeat(64),
    };
    await handle.signal(decideSignal, bad);
  }
}

/** Every execution of the gate, oldest first, with its history length. */
async function executions(id: string): Promise<number[]> {
  const lengths: number[] = [];
  for await (const e of client.workflow.list({ query: `WorkflowId = '${id}'` })) {
    const h = await client.workflow.getHandle(id, e.runId).fetchHistory();
    lengths.push(h.events?.length ?? 0);
  }
  return lengths;
}

it('continues as new under a flood of bad signals and still takes the decision, with one verified chain', async () => {
  const input = await openGate(600);
  const id = input.payload.request_id;
  await flood(id, 130);
  const live = await waitFor(
    'the continued gate with its refusals',
    async () => {
      const g = await gates.get(id);
      if (g.stale) return undefined;
      return (g.executions ?? 1) > 1 && (g.refusals_unrecorded ?? 0) === 30 ? g : undefined;
    },
    60_000,
  );
  expect(live.status).toBe('requested');
  // The tenant came along: the owner still sees the continued gate, another tenant still does not.
  expect((await gates.get(id, { tenant: TENANT, agentId: 'agent-1' })).status).toBe('requested');
  await expect(gates.get(id, { tenant: 'globex' })).rejects.toMatchObject({ status: 404 });
  await gates.decide(id, {
    decision_id: 'd1',
    reviewer_id: 'rev-1',
    decision: 'approve',
    payload_sha256: input.payload_sha256,
  });
  const consumed = await gates.consume(id, 'agent-1');
  expect(consumed.args).toEqual({ charge: 'ch_1', amount: 4000 });
  const final = await client.workflow.getHandle(id).result();
  expect(final.status).toBe('consumed');

  const lengths = await executions(id);
  expect(lengths.length).toBeGreaterThan(1);
  // The limit, plus the signals that arrive while the handover's task is in flight (a fast flood adds some dozens).
  for (const n of lengths) expect(n).toBeLessThan(2 * LIMIT);

  const view = await gates.audit(id);
  expect(view.verified).toBe(true);
  expect(view.store).toMatchObject({ verified: true, matches_workflow: true, lagging: 0 });
  const types = view.events.map((e) => e.event_type);
  expect(types[0]).toBe('approval.requested');
  expect(types.filter((t) => t === 'decision.refused')).toHaveLength(100); // one cap across executions
  expect(types.slice(-2)).toEqual(['approval.approved', 'approval.consumed']);

  // Memo and search attributes came along: the gate is still listed, by its status, as one gate.
  const listed = await waitFor(
    'the consumed gate listed',
    async () => {
      const rows = await gates.list({ status: 'consumed', target: input.payload.target, scope: { tenant: TENANT } });
      return rows.length > 0 ? rows : undefined;
    },
    60_000,
  );
  expect(listed.map((r) => r.request_id)).toEqual([id]);
});

it('keeps the original deadline across executions: a flooded gate still expires on time', async () => {
  const input = await openGate(8);
  const id = input.payload.request_id;
  await flood(id, 60);
  const final = await client.workflow.getHandle(id).result();
  expect(final.status).toBe('expired');
  expect(final.executions ?? 1).toBeGreaterThan(1);
  const expiredAt = Date.parse(final.updated_at);
  expect(expiredAt).toBeGreaterThanOrEqual(Date.parse(input.payload.expires_at));
  expect(expiredAt - Date.parse(input.payload.expires_at)).toBeLessThan(5000);
});
