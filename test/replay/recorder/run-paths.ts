import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { getGateQuery } from '../../../src/workflow/gate/messages';
import { getRunQuery, respondInteractionUpdate } from '../../../src/workflow/agent-run/messages';
import type * as Harness from '../../support/run-harness';
import { executionHistories, expectPatches, GATE_TYPE, saveExecutions, voteAsFinance } from './common';
import type { History } from '../history-codec';
import { JUDGED_RUN_PATHS } from './judged-run-paths';
import { DRAFT, submit, type RunPath } from './run-kit';

// agentRun paths: a scripted model, every real activity of the trip domain, child gates decided by update.

export const RUN_PATHS: Record<string, RunPath> = {
  /** Submit waits for a tool gate; approved, the gate re-checks and runs the tool; the model reports the result. */
  'trip-approve': {
    turns: [...DRAFT, submit('c3'), { content: 'Submitted, budget {{value:c3.budget}} KRW.' }],
    drive: (h, client, runId) => h.decidePending(client, runId, { decision: 'approve' }),
    expect: { run: 'completed', gate: 'consumed' },
  },
  /** Modified to 500,000: the gate calls the reviser, signals argsFinalized to the run, then runs the tool. */
  'trip-modify': {
    turns: [...DRAFT, submit('c3'), { content: 'Submitted, budget {{value:c3.budget}} KRW.' }],
    drive: (h, client, runId) => h.decidePending(client, runId, { decision: 'modify', args: { budget: 500000 } }),
    expect: { run: 'completed', gate: 'consumed' },
  },
  /** Denied with a reason; the model retries the same call, which is blocked without a second gate. */
  'trip-reject': {
    turns: [...DRAFT, submit('c3'), submit('c4'), { content: 'Not submitted. {{result:c3}}' }],
    drive: (h, client, runId) =>
      h.decidePending(client, runId, { decision: 'reject', reason: 'the quarterly budget is used up' }),
    expect: { run: 'completed', gate: 'denied' },
  },
  /** One turn with a read-only call and a gated one: the barrier waits for both. */
  'trip-batch': {
    turns: [
      ...DRAFT,
      {
        content: '',
        tool_calls: [
          { id: 's1', name: 'search_trip_policy', args: { query: 'approvals' } },
          { id: 's2', name: 'submit_trip_request', args: {} },
        ],
      },
      { content: 'Submitted, budget {{value:s2.budget}} KRW.' },
    ],
    drive: (h, client, runId) => h.decidePending(client, runId, { decision: 'approve' }),
    expect: { run: 'completed', gate: 'consumed' },
  },
  /** ask_user: the run waits for an answer, which arrives by the respondInteraction update. */
  'ask-user': {
    turns: [
      {
        content: '',
        tool_calls: [
          {
            id: 'a1',
            name: 'ask_user',
            args: {
              type: 'SELECT',
              target: 'destination',
              prompt: 'Where to?',
              options: ['Busan', 'Jeju'],
              required: true,
            },
          },
        ],
      },
      { content: 'You chose {{value:a1.value}}' },
    ],
    drive: async (h, client, runId) => {
      const v = await h.waitForRun(client, runId, (r) => r.pending_interactions.length > 0);
      await client.workflow.getHandle(runId).executeUpdate(respondInteractionUpdate, {
        args: [v.pending_interactions[0]!.id, { value: 'Jeju', responder_id: 'user-1' }],
      });
    },
    expect: { run: 'completed' },
  },
  /**
   * The worker's rule file asks two `finance` approvals for trip.*: the run's gate carries the
   * rule in its evidence; a vote without the role is refused and audited.
   */
  'trip-roles': {
    rules: 'rules:\n  - action: trip.*\n    roles: [finance]\n    min_approvals: 2\n',
    turns: [...DRAFT, submit('c3'), { content: 'Submitted, budget {{value:c3.budget}} KRW.' }],
    drive: async (h, client, runId) => {
      const v = await h.waitForRun(client, runId, (r) => r.pending_approvals.length > 0);
      await voteAsFinance(client.workflow.getHandle(v.pending_approvals[0]!.request_id), 'rev-support');
    },
    expect: { run: 'completed', gate: 'consumed' },
  },
  /**
   * Two model turns per execution: after draft and validate the run continues as new (its
   * conversation log named by ref), and the second execution submits through an approved gate.
   */
  'run-continue': {
    input: { continue_as_new: { turns_per_execution: 2 } },
    turns: [...DRAFT, submit('c3'), { content: 'Submitted, budget {{value:c3.budget}} KRW.' }],
    drive: (h, client, runId) => h.decidePending(client, runId, { decision: 'approve' }),
    expect: { run: 'completed', gate: 'consumed', executions: 2 },
  },
  /**
   * The run is cancelled while its gate waits: the gate records `approval.cancelled` and
   * completes with its state, then the run closes as Canceled after writing `run.cancelled`.
   */
  'run-cancel': {
    turns: [...DRAFT, submit('c3'), { content: 'end' }],
    drive: async (h, client, runId) => {
      await h.waitForRun(client, runId, (r) => r.pending_approvals.length > 0);
      await client.workflow.getHandle(runId).cancel();
    },
    expect: { run: 'cancelled', gate: 'cancelled' },
  },
  /**
   * The worker's GATE_NOTIFY names a Slack channel and no rule names targets: the run's tool
   * gate is told there at creation (from 0.3.0), approved, and its message ended.
   */
  'trip-notify-default': {
    notify: 'slack:#trip-approvals',
    turns: [...DRAFT, submit('c3'), { content: 'Submitted, budget {{value:c3.budget}} KRW.' }],
    drive: (h, client, runId) => h.decidePending(client, runId, { decision: 'approve' }),
    expect: { run: 'completed', gate: 'consumed' },
    patches: { run: ['run-call-notify-defaults'], gate: ['gate-notices'] },
  },
};

/** Ids of the child gates a run started, in order, from its histories. */
export function childGateIds(histories: History[]): string[] {
  return histories.flatMap((h) =>
    (h.events ?? []).flatMap((e) => {
      const a = e.startChildWorkflowExecutionInitiatedEventAttributes;
      return a?.workflowType?.name === GATE_TYPE && a.workflowId ? [a.workflowId] : [];
    }),
  );
}

/** Runs one path to its end and saves the run's histories and its child gate's. */
async function recordRunPath(
  h: typeof Harness,
  client: Client,
  taskQueue: string,
  dir: string,
  name: string,
  p: RunPath,
) {
  const runId = await h.startRun(client, taskQueue, p.turns, p.input);
  await p.drive(h, client, runId);
  const run = client.workflow.getHandle(runId);
  await run.result().catch(() => undefined); // a cancelled run ends with a CancelledFailure; the checks below decide
  const view = await run.query(getRunQuery);
  const gates = childGateIds(await executionHistories(client, runId));
  if (view.status !== p.expect.run || gates.length !== (p.expect.gate ? 1 : 0))
    throw new Error(
      `${name}: run ended ${view.status} with ${gates.length} gate(s); expected ${p.expect.run} with ${p.expect.gate ? 1 : 0}`,
    );
  if (p.result) {
    const m = view.messages.find((x) => x.role === 'tool' && x.tool_call_id === p.result!.call);
    const outcome = m && 'outcome' in m ? m.outcome : undefined;
    if (outcome !== p.result.outcome)
      throw new Error(`${name}: call ${p.result.call} got ${outcome ?? 'no result'}; expected ${p.result.outcome}`);
  }
  await expectPatches(client, name, runId, p.patches?.run ?? []);
  const executions = await saveExecutions(client, dir, name, runId, view.status);
  if (executions !== (p.expect.executions ?? 1))
    throw new Error(`${name}: the run took ${executions} executions; expected ${p.expect.executions ?? 1}`);
  for (const id of gates) {
    const gate = client.workflow.getHandle(id);
    await gate.result().catch(() => undefined); // the status check below decides
    const state = await gate.query(getGateQuery);
    if (state.status !== p.expect.gate)
      throw new Error(`${name}: gate ${id} ended ${state.status}; expected ${p.expect.gate}`);
    await expectPatches(client, name, id, p.patches?.gate ?? []);
    await saveExecutions(client, dir, name, id, state.status);
  }
}

/** Records every run path (0.1.0's, then those added since) into `dir`, one worker per rule file, with its real activities. */
export async function recordRunPaths(
  client: Client,
  withWorker: (activities: object, run: (taskQueue: string) => Promise<void>) => Promise<void>,
  dir: string,
): Promise<void> {
  // Loaded here: only this set needs the store, the trip domain and the harness.
  const { createActivities } = await import('../../../src/worker/activities');
  const { parsePolicyText } = await import('../../../src/policy/parse');
  const { openSqlite } = await import('../../../src/store/db');
  const { tripDomain } = await import('../../../examples/trip');
  const h = await import('../../support/run-harness');
  const { slackDefaults, startSlackStandin } = await import('../../support/slack-standin');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-replay-record-'));
  const db = openSqlite(path.join(tmp, 'gate.db'));
  const slack = await startSlackStandin();
  try {
    const paths = Object.entries({ ...RUN_PATHS, ...JUDGED_RUN_PATHS });
    // One worker per rule file and GATE_NOTIFY, in the order the paths first name them.
    const setting = (p: RunPath) => JSON.stringify([p.rules ?? null, p.notify ?? null]);
    for (const key of [...new Set(paths.map(([, p]) => setting(p)))]) {
      const { rules, notify } = paths.find(([, p]) => setting(p) === key)![1];
      const policy = rules === undefined ? undefined : parsePolicyText(rules, 'rules.yaml');
      const settings = notify ? slackDefaults(slack, notify) : undefined;
      const { activities } = await createActivities({ db, domains: [tripDomain], policy, notify: settings });
      await withWorker(activities, async (taskQueue) => {
        for (const [name, p] of paths) if (setting(p) === key) await recordRunPath(h, client, taskQueue, dir, name, p);
      });
    }
  } finally {
    await db.close();
    await slack.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
