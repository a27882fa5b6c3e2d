import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { createActivities } from '../../src/worker/activities';
import { tripDomain } from '../../examples/trip';
import type { ToolMessage } from '../../src/common/conversation';
import { openSqlite, type Db } from '../../src/store/db';
import type { RunView } from '../../src/workflow/agent-run/messages';
import { decidePending, draftAndValidate, startRun, submissionsOf, waitForRun } from '../support/run-harness';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';

/**
 * A real SQLite store with one injected fault: the first statement matching `sql` throws
 * a store error (before the commit), or the first transaction that ran it throws after
 * its commit (the effect is written, the answer is lost), the two ways a database hiccup
 * meets a tool.
 */
function faultyDb(inner: Db, sql: RegExp, when: 'before-commit' | 'after-commit') {
  const fault = { armed: false, fired: 0 };
  const wrap = (d: Db, inTx: { saw: boolean }): Db => ({
    dialect: d.dialect,
    query: (s, p) => d.query(s, p),
    async run(s, p) {
      if (fault.armed && sql.test(s)) {
        if (when === 'before-commit') {
          fault.armed = false;
          fault.fired++;
          throw new Error('SQLITE_IOERR: disk I/O error (injected)');
        }
        inTx.saw = true;
      }
      return d.run(s, p);
    },
    async transaction(fn) {
      const seen = { saw: false };
      const out = await d.transaction((tx) => fn(wrap(tx, seen)));
      if (seen.saw && fault.armed) {
        fault.armed = false;
        fault.fired++;
        throw new Error('Connection terminated unexpectedly (injected, after the commit)');
      }
      return out;
    },
    close: () => d.close(),
  });
  return { db: wrap(inner, { saw: false }), fault };
}

let client: Client;
let connection: Connection;
const done = (v: RunView) => ['completed', 'failed', 'cancelled'].includes(v.status);
const toolMessages = (v: RunView): ToolMessage[] => v.messages.filter((m): m is ToolMessage => m.role === 'tool');
const submit = { content: '', tool_calls: [{ id: 'c3', name: 'submit_trip_request', args: {} }] };
const stacks: { worker: RunningWorker; db: Db }[] = [];

async function stack(wrapDb?: (db: Db) => Db, patch: Record<string, unknown> = {}) {
  const real = openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gate-errors-')), 'gate.db'));
  const db = wrapDb ? wrapDb(real) : real;
  const { activities } = await createActivities({ db, domains: [tripDomain] });
  const worker = await startTestWorker({ ...activities, ...patch });
  stacks.push({ worker, db: real });
  return { worker, db };
}

/** Per tool activity in a workflow's history: its last attempt, the failure before it, and its final failure. */
async function toolAttempts(workflowId: string) {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  // The gate runs its tool in recheckAndExecuteTool (re-check inside); a run's ungated tools in executeTool.
  const tools = ['executeTool', 'recheckAndExecuteTool'];
  const scheduled = events.filter((e) =>
    tools.includes(e.activityTaskScheduledEventAttributes?.activityType?.name ?? ''),
  );
  return scheduled.map((sch) => {
    const id = String(sch.eventId);
    const started = events.find((e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === id);
    const failed = events.find((e) => String(e.activityTaskFailedEventAttributes?.scheduledEventId) === id);
    return {
      attempt: started?.activityTaskStartedEventAttributes?.attempt,
      retriedAfter: started?.activityTaskStartedEventAttributes?.lastFailure?.applicationFailureInfo?.type,
      failed: failed?.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type,
    };
  });
}

beforeAll(async () => {
  ({ client, connection } = await testClient());
});
afterAll(async () => {
  for (const s of stacks) {
    await s.worker.stop();
    await s.db.close();
  }
  await connection.close();
});

describe('errors classified by who is at fault', () => {
  it.each(['before-commit', 'after-commit'] as const)(
    'retries a store error inside the gated tool (%s): the tool runs once and the model sees success',
    async (when) => {
      let fault!: { armed: boolean; fired: number };
      const s = await stack((db) => {
        const f = faultyDb(db, /INSERT INTO trip_submissions/, when);
        fault = f.fault;
        return f.db;
      });
      const runId = await startRun(client, s.worker.taskQueue, [
        ...draftAndValidate(800000),
        submit,
        { content: 'ok' },
      ]);
      await waitForRun(client, runId, (r) => r.pending_approvals.length > 0);
      fault.armed = true;
      const requestId = await decidePending(client, runId, { decision: 'approve' });
      const v = await waitForRun(client, runId, done);
      expect(fault.fired).toBe(1);
      expect(v.status).toBe('completed');
      expect(toolMessages(v).find((m) => m.tool_call_id === 'c3')?.outcome).toBe('success');
      expect(await submissionsOf(s.db, runId)).toHaveLength(1);
      // The failed attempt was retried as what it is, not reported as the tool's own failure.
      expect(await toolAttempts(requestId)).toEqual([{ attempt: 2, retriedAfter: 'Error', failed: undefined }]);
    },
  );

  it("reports a tool's own refusal (DomainToolError) as ToolFailed, once, to the model", async () => {
    const s = await stack();
    const runId = await startRun(client, s.worker.taskQueue, [
      { content: '', tool_calls: [{ id: 'v0', name: 'validate_trip_request', args: {} }] },
      { content: 'no draft' },
    ]);
    const v = await waitForRun(client, runId, done);
    expect(v.status).toBe('completed');
    expect(toolMessages(v)[0]).toMatchObject({ tool_call_id: 'v0', outcome: 'failure' });
    expect(toolMessages(v)[0]!.content).toMatch(/no draft to validate/);
    // One attempt: the refusal is final, not retried.
    expect(await toolAttempts(runId)).toEqual([{ attempt: 1, retriedAfter: undefined, failed: 'ToolFailed' }]);
  });

  it("fails a run with the cause's own type: ModelExhausted, not a blanket ModelError", async () => {
    const s = await stack();
    const runId = await startRun(client, s.worker.taskQueue, []);
    const err = await client.workflow
      .getHandle(runId)
      .result()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(((err as WorkflowFailedError).cause as ApplicationFailure).type).toBe('ModelExhausted');
    const v = await waitForRun(client, runId, done);
    expect(v).toMatchObject({ status: 'failed', error_type: 'ModelExhausted' });
  });

  it('fails the run naming a non-retryable infrastructure failure instead of reporting the tool as failed', async () => {
    const s = await stack(undefined, {
      executeTool: async () => {
        throw ApplicationFailure.create({ type: 'StoreSchemaMissing', message: 'no such table', nonRetryable: true });
      },
    });
    const runId = await startRun(client, s.worker.taskQueue, [
      { content: '', tool_calls: [{ id: 'q1', name: 'search_trip_policy', args: { query: 'x' } }] },
      { content: 'never' },
    ]);
    const v = await waitForRun(client, runId, done);
    expect(v).toMatchObject({ status: 'failed', error_type: 'StoreSchemaMissing', error: 'no such table' });
    expect(toolMessages(v)).toEqual([]); // the model was never told the tool failed
  });

  it('fails the workflow task, not the run, on a bug in workflow code, so a fixed deploy can still rescue it', async () => {
    // A broken activity result makes the loop's own code throw a TypeError.
    const s = await stack(undefined, { listPermittedTools: async () => null });
    const runId = await startRun(client, s.worker.taskQueue, [{ content: 'never reached' }]);
    const handle = client.workflow.getHandle(runId);
    const deadline = Date.now() + 20_000;
    let taskFailures = 0;
    while (Date.now() < deadline && taskFailures === 0) {
      const history = await handle.fetchHistory();
      taskFailures = (history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes).length;
      if (taskFailures === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(taskFailures).toBeGreaterThan(0);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate('test done');
  });
});
