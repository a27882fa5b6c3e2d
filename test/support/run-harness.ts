import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { createActivities } from '../../src/worker/activities';
import { listSubmissions, tripDomain } from '../../examples/trip';
import { AuditStore } from '../../src/store/audit-store';
import { openDb, openSqlite, type Db } from '../../src/store/db';
import type { ScriptedTurn } from '../../src/common/model-spec';
import { decideUpdate, getGateQuery } from '../../src/workflow/gate/messages';
import { getRunQuery, type RunInput, type RunView } from '../../src/workflow/agent-run/messages';
import { startTestWorker, testClient, type RunningWorker } from './temporal';

/** What `startRunStack` runs: its store, its worker and their temp folder. */
export interface RunStack {
  db: Db;
  worker: RunningWorker;
  dir: string;
  close(): Promise<void>;
}

/** An in-process worker with every real activity on a temp SQLite store. */
export async function startRunStack(): Promise<RunStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-run-'));
  const db = openSqlite(path.join(dir, 'gate.db'));
  const { activities } = await createActivities({ db, domains: [tripDomain] });
  const worker = await startTestWorker(activities);
  return {
    db,
    worker,
    dir,
    close: async () => {
      await worker.stop();
      await db.close();
    },
  };
}

/**
 * The suite's set-up and tear-down: before the first test a test client and a run stack
 * (startRunStack), handed to `use`; after the last both are closed.
 */
export function useRunStack(use: (client: Client, stack: RunStack) => void): void {
  let connection: Connection | undefined;
  let stack: RunStack | undefined;
  beforeAll(async () => {
    const t = await testClient();
    connection = t.connection;
    stack = await startRunStack();
    use(t.client, stack);
  });
  afterAll(async () => {
    await stack?.close();
    await connection?.close();
  });
}

/**
 * The set-up and tear-down of a suite that runs gates on an in-memory audit store: before
 * the first test a test client and the migrated store, handed to `use`; after the last both
 * are closed.
 */
export function useAuditSuite(use: (client: Client, audit: AuditStore) => void): void {
  let connection: Connection | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    const t = await testClient();
    connection = t.connection;
    db = openDb({ sqliteFile: ':memory:' });
    const audit = new AuditStore(db);
    await audit.migrate();
    use(t.client, audit);
  });
  afterAll(async () => {
    await connection?.close();
    await db?.close();
  });
}

/** Starts an agentRun with scripted turns. */
export async function startRun(
  client: Client,
  taskQueue: string,
  turns: ScriptedTurn[],
  extra: Partial<RunInput> = {},
): Promise<string> {
  const runId = `run_${randomUUID().slice(0, 12)}`;
  const input: RunInput = {
    run_id: runId,
    goal: 'Plan a business trip',
    domain: 'trip',
    model: { kind: 'scripted', turns },
    agent_id: 'agent-1',
    approval_ttl_seconds: 600,
    max_turns: 20,
    ...extra,
  };
  await client.workflow.start('agentRunWorkflow', { workflowId: runId, taskQueue, args: [input] });
  return runId;
}

/** Polls the run until `pred` holds (or 30 s pass). */
export async function waitForRun(
  client: Client,
  runId: string,
  pred: (v: RunView) => boolean,
  timeoutMs = 30_000,
): Promise<RunView> {
  const deadline = Date.now() + timeoutMs;
  let last: RunView | undefined;
  while (Date.now() < deadline) {
    last = await client.workflow.getHandle(runId).query(getRunQuery);
    if (pred(last)) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`run ${runId} did not reach the expected state; last: ${JSON.stringify(last)}`);
}

/** Waits for the run's first pending gate and decides it by update as `reviewer`. */
export async function decidePending(
  client: Client,
  runId: string,
  decision: { decision: 'approve' | 'reject' | 'modify'; reason?: string; args?: Record<string, unknown> },
  reviewer = 'rev-1',
): Promise<string> {
  const v = await waitForRun(client, runId, (r) => r.pending_approvals.length > 0);
  const requestId = v.pending_approvals[0]!.request_id;
  const gate = client.workflow.getHandle(requestId);
  const state = await gate.query(getGateQuery);
  await gate.executeUpdate(decideUpdate, {
    args: [
      {
        decision_id: randomUUID(),
        reviewer_id: reviewer,
        payload_sha256: state.payload_sha256,
        args_sha256: state.final_args_sha256,
        ...decision,
      },
    ],
  });
  return requestId;
}

export async function submissionsOf(db: Db, runId: string) {
  return (await listSubmissions(db)).filter((s) => s.request_id.startsWith(runId));
}

/** Scripted turns: draft, validate, then `then`. */
export function draftAndValidate(budget: number, days = 2): ScriptedTurn[] {
  return [
    {
      content: '',
      tool_calls: [{ id: 'c1', name: 'draft_trip_request', args: { destination: 'Busan', days, budget } }],
    },
    { content: '', tool_calls: [{ id: 'c2', name: 'validate_trip_request', args: {} }] },
  ];
}
