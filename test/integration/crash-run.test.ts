import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { ToolMessage } from '../../src/common/conversation';
import type { GateState } from '../../src/common/gate-state';
import { listSubmissions, migrateTripStore } from '../../examples/trip';
import type { ScriptedTurn } from '../../src/common/model-spec';
import { openSqlite, type Db } from '../../src/store/db';
import { agentRunWorkflow } from '../../src/workflow/agent-run/agent-run';
import { decideSignal, decideUpdate, getGateQuery } from '../../src/workflow/gate/messages';
import { getRunQuery, type RunInput, type RunView } from '../../src/workflow/agent-run/messages';
import { killLeftoverWorkers, spawnWorker, uniqueTaskQueue } from '../support/processes';
import { waitFor } from '../support/wait';
import { crashAfterSubmitEnv } from '../support/trip-crash-domain';

// An agentRun on the trip domain, its worker process SIGKILLed around the gated
// submission: the run must finish with exactly one submission and one result per call.

const TURNS: ScriptedTurn[] = [
  {
    content: '',
    tool_calls: [{ id: 'c1', name: 'draft_trip_request', args: { destination: 'Busan', days: 2, budget: 800_000 } }],
  },
  { content: '', tool_calls: [{ id: 'c2', name: 'validate_trip_request', args: {} }] },
  { content: '', tool_calls: [{ id: 'c3', name: 'submit_trip_request', args: {} }] },
  { content: 'Submitted as {{value:c3.submission_id}} ({{outcome:c3}}).' },
];

let connection: Connection;
let client: Client;
const dirs: string[] = [];
const dbs: Db[] = [];

beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection });
});

afterAll(async () => {
  await killLeftoverWorkers();
  await Promise.all(dbs.map((d) => d.close()));
  await connection?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A data dir for the worker, and the test's own handle on the same SQLite file. */
async function store(): Promise<{ dataDir: string; db: Db }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-crash-run-'));
  dirs.push(dataDir);
  const db = openSqlite(path.join(dataDir, 'gate.db'));
  dbs.push(db);
  await migrateTripStore(db);
  return { dataDir, db };
}

async function startRun(taskQueue: string): Promise<WorkflowHandle<typeof agentRunWorkflow>> {
  const runId = `run_${randomUUID().slice(0, 12)}`;
  const input: RunInput = {
    run_id: runId,
    goal: 'Submit a 2-day Busan trip',
    domain: 'trip',
    model: { kind: 'scripted', turns: TURNS },
    agent_id: 'agent-crash',
    approval_ttl_seconds: 600,
    max_turns: 10,
  };
  return client.workflow.start(agentRunWorkflow, { workflowId: runId, taskQueue, args: [input] });
}

async function idle(h: WorkflowHandle): Promise<boolean> {
  return ((await h.describe()).raw.pendingActivities?.length ?? 0) === 0;
}

/** Waits until the run waits on its submit gate, and both have no activity in flight; returns the gate's state. */
async function pendingGate(
  run: WorkflowHandle<typeof agentRunWorkflow>,
): Promise<{ gate: WorkflowHandle; state: GateState }> {
  const view = await waitFor('a pending approval', async () => {
    const v = await run.query(getRunQuery);
    return v.pending_approvals.length > 0 ? v : undefined;
  });
  expect(view.pending_approvals).toEqual([
    { call_id: 'c3', request_id: `${view.run_id}-c3`, tool: 'submit_trip_request' },
  ]);
  const gate = client.workflow.getHandle(view.pending_approvals[0]!.request_id);
  const state = await waitFor('the gate and the run to be idle', async () => {
    const s = await gate.query(getGateQuery);
    return s.status === 'requested' && (await idle(gate)) && (await idle(run)) ? s : undefined;
  });
  return { gate, state };
}

/** Recorded starts of an activity type in a workflow's history (the last attempt of each is recorded). */
async function activityStarts(h: WorkflowHandle, type: string): Promise<{ attempt: number; lastFailure?: string }[]> {
  const events = (await h.fetchHistory()).events ?? [];
  const scheduled = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
      .map((e) => String(e.eventId)),
  );
  return events
    .map((e) => e.activityTaskStartedEventAttributes)
    .filter((a) => a && scheduled.has(String(a.scheduledEventId)))
    .map((a) => ({ attempt: a!.attempt ?? 0, lastFailure: a!.lastFailure?.message ?? undefined }));
}

function submitResult(v: RunView): ToolMessage {
  const results = v.messages.filter((m): m is ToolMessage => m.role === 'tool');
  expect(results.map((m) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']); // one result per call, in order
  return results[2]!;
}

it('submits exactly once when the worker is SIGKILLed while the run waits and the approval arrives by signal with no worker up', async () => {
  const { dataDir, db } = await store();
  const taskQueue = uniqueTaskQueue('crash-run');
  const first = await spawnWorker({ dataDir, taskQueue });
  const run = await startRun(taskQueue);
  const { gate, state } = await pendingGate(run);

  expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  await gate.signal(decideSignal, {
    decision_id: `dec-${randomUUID()}`,
    reviewer_id: 'rev-1',
    decision: 'approve',
    payload_sha256: state.payload_sha256,
  });
  expect(await listSubmissions(db, { sessionId: run.workflowId })).toEqual([]);

  await spawnWorker({ dataDir, taskQueue });
  const final = await run.result();
  expect(final.status).toBe('completed');
  const submitted = submitResult(final);
  expect(submitted.outcome).toBe('success');
  const mine = (await listSubmissions(db)).filter((s) => s.request_id === state.request_id);
  expect(mine).toHaveLength(1);
  expect(submitted.values).toMatchObject({ request_id: state.request_id, submission_id: mine[0]!.submission_id });
  expect(final.final_answer).toBe(`Submitted as ${mine[0]!.submission_id} (success).`);
});

it('submits exactly once when the worker dies inside the submit activity after the commit and before it reports', async () => {
  const { dataDir, db } = await store();
  const taskQueue = uniqueTaskQueue('crash-run-commit');
  const marker = path.join(dataDir, 'crash-after-submit');
  fs.writeFileSync(marker, '');
  const doomed = await spawnWorker({ dataDir, taskQueue, env: crashAfterSubmitEnv(marker) });
  const run = await startRun(taskQueue);
  const { gate, state } = await pendingGate(run);

  const decided = await gate.executeUpdate(decideUpdate, {
    args: [
      {
        decision_id: `dec-${randomUUID()}`,
        reviewer_id: 'rev-1',
        decision: 'approve',
        payload_sha256: state.payload_sha256,
      },
    ],
  });
  expect(decided).toMatchObject({ status: 'approved', applied: true });

  // The crash domain (test/support/trip-crash-domain.ts) kills the worker right after the submission commits.
  expect(await doomed.exited).toEqual({ code: null, signal: 'SIGKILL' });
  expect(fs.existsSync(marker)).toBe(false);
  const committed = (await listSubmissions(db)).filter((s) => s.request_id === state.request_id);
  expect(committed).toHaveLength(1);

  await spawnWorker({ dataDir, taskQueue }); // no marker: the retried activity finds the committed output
  const final = await run.result();
  expect(final.status).toBe('completed');
  const submitted = submitResult(final);
  expect(submitted.outcome).toBe('success');
  expect(submitted.values).toMatchObject({ request_id: state.request_id, submission_id: committed[0]!.submission_id });
  expect((await listSubmissions(db)).filter((s) => s.request_id === state.request_id)).toEqual(committed);
  expect(await listSubmissions(db, { sessionId: run.workflowId })).toHaveLength(1);
  const gateFinal = (await gate.result()) as GateState;
  expect(gateFinal).toMatchObject({ status: 'consumed', execution: { outcome: 'success' } });
  // The success came from a retry of the killed attempt, noticed by its heartbeat timeout.
  // History records only the last attempt's start: attempt 2, after the first one's heartbeat timeout.
  // The gate re-checks inside its tool's activity: the retry found its key already run, skipped the
  // re-check (it would have seen its own submission as drift) and returned the stored output.
  expect(await activityStarts(gate, 'recheckAndExecuteTool')).toEqual([
    { attempt: 2, lastFailure: expect.stringMatching(/heartbeat timeout/i) },
  ]);
});
