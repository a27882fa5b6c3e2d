import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { verifyChain } from '../../src/common/audit';
import { validateConversation, type Message, type ToolMessage } from '../../src/common/conversation';
import { RunClient } from '../../src/client/run-client';
import type { ScriptedTurn } from '../../src/common/model-spec';
import { AuditStore } from '../../src/store/audit-store';
import type { RunInput, RunView } from '../../src/workflow/agent-run/messages';
import {
  decidePending,
  draftAndValidate,
  type RunStack,
  useRunStack,
  submissionsOf,
  waitForRun,
} from '../support/run-harness';

// agentRunWorkflow continues as new at turn boundaries: one run of 300 tool calls over
// several executions, and a small run that hands over its conversation log at every turn.

let client: Client;
let stack: RunStack;
useRunStack((c, s) => {
  client = c;
  stack = s;
});
const done = (v: RunView) => ['completed', 'failed', 'cancelled'].includes(v.status);
const toolMessages = (v: RunView): ToolMessage[] => v.messages.filter((m): m is ToolMessage => m.role === 'tool');
const callIds = (messages: Message[]): string[] =>
  messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []));

/** Starts a run as the API would (memo with the agent), with the given continue-as-new limits. */
async function start(turns: ScriptedTurn[], limits: RunInput['continue_as_new'], maxTurns: number): Promise<string> {
  const runId = `run_${randomUUID().slice(0, 12)}`;
  const input: RunInput = {
    run_id: runId,
    goal: 'Read the travel policy',
    domain: 'trip',
    model: { kind: 'scripted', turns },
    agent_id: 'agent-1',
    approval_ttl_seconds: 600,
    max_turns: maxTurns,
    continue_as_new: limits,
  };
  await client.workflow.start('agentRunWorkflow', {
    workflowId: runId,
    taskQueue: stack.worker.taskQueue,
    args: [input],
    memo: { agent_id: 'agent-1' },
  });
  return runId;
}

/** The run's trail as `GET /v1/runs/{id}/audit` reads it: the append-only store, verified. */
async function runTrail(runId: string) {
  // Once closed the run has written its last event (its view says `completed` just before that write).
  await client.workflow
    .getHandle(runId)
    .result()
    .catch(() => undefined);
  const events = await new AuditStore(stack.db).list(runId);
  return { events, verified: verifyChain(events) };
}

/** Every execution's history, oldest first, following `continuedExecutionRunId` back from the latest. */
async function executionHistories(runId: string) {
  const out: {
    workflowId: string;
    history: Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;
  }[] = [];
  for (let execRunId: string | undefined; ;) {
    const history = await client.workflow.getHandle(runId, execRunId).fetchHistory();
    out.unshift({ workflowId: runId, history });
    execRunId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!execRunId) return out;
  }
}

/** Replays each execution against today's bundle: the continue-as-new path must be deterministic too. */
async function expectReplays(runId: string, executions: number): Promise<void> {
  const histories = await executionHistories(runId);
  expect(histories).toHaveLength(executions);
  const errors: unknown[] = [];
  for await (const r of Worker.runReplayHistories(
    { workflowBundle: { codePath: process.env.GATE_TEST_WORKFLOW_BUNDLE! }, replayName: 'continue-as-new-replay' },
    histories,
  ))
    errors.push(r.error ?? null);
  expect(errors).toEqual(histories.map(() => null));
}

describe('agentRun continue-as-new', () => {
  it('runs 300 tool calls over several executions, one result each in call order, with one verified trail', async () => {
    const BATCHES = 30;
    const PER_TURN = 10;
    const turns: ScriptedTurn[] = Array.from({ length: BATCHES }, (_, t) => ({
      content: '',
      tool_calls: Array.from({ length: PER_TURN }, (_, i) => ({
        id: `s${t}_${i}`,
        name: 'search_trip_policy',
        args: { query: i % 2 ? 'budget' : 'approval' },
      })),
    }));
    // The final answer quotes the very first result: the conversation crossed every execution.
    turns.push({ content: 'First finding: {{result:s0_0}}' });
    const runId = await start(turns, { turns_per_execution: 8 }, 40);

    const v = await waitForRun(client, runId, done, 85_000);
    expect(v.status).toBe('completed');
    expect(v.executions).toBeGreaterThanOrEqual(4);
    expect(v.turns).toBe(BATCHES + 1);

    const expectedIds = turns.flatMap((t) => (t.tool_calls ?? []).map((c) => c.id));
    expect(expectedIds).toHaveLength(300);
    expect(callIds(v.messages)).toEqual(expectedIds);
    expect(toolMessages(v).map((m) => m.tool_call_id)).toEqual(expectedIds);
    expect(toolMessages(v).every((m) => m.outcome === 'success')).toBe(true);
    expect(validateConversation(v.messages)).toEqual([]);
    expect(v.final_answer).toBe(`First finding: ${toolMessages(v)[0]!.content}`);

    // The latest execution is a continuation, and kept the memo the API's cancel reads.
    const handle = client.workflow.getHandle(runId);
    const history = await handle.fetchHistory();
    expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
    expect((await handle.describe()).memo).toMatchObject({ agent_id: 'agent-1' });
    // The API's read of the run follows the chain of executions.
    expect(await new RunClient(client, { taskQueue: stack.worker.taskQueue }).get(runId)).toMatchObject({
      status: 'completed',
      executions: v.executions,
    });

    const { events, verified } = await runTrail(runId);
    expect(verified).toEqual({ ok: true, count: events.length });
    const types = events.map((e) => e.event_type);
    expect(types[0]).toBe('run.started');
    expect(types[types.length - 1]).toBe('run.completed');
    expect(types.filter((t) => t === 'run.continued')).toHaveLength(v.executions! - 1);
    const results = events.filter((e) => e.event_type === 'tool.result').map((e) => String(e.data.call_id));
    expect(results.sort()).toEqual([...expectedIds].sort());
    expect(events).toHaveLength(1 + 300 + (v.executions! - 1) + 1);
    await expectReplays(runId, v.executions!);
  }, 90_000);

  it('hands each execution the conversation log by ref, and keeps denial memory across executions', async () => {
    const submit = (id: string): ScriptedTurn => ({
      content: '',
      tool_calls: [{ id, name: 'submit_trip_request', args: {} }],
    });
    const turns = [
      ...draftAndValidate(800000),
      submit('c3'),
      submit('c4'),
      { content: 'c3 {{outcome:c3}}, c4 {{outcome:c4}}, draft {{value:c1.draft_id}}' },
    ];
    // One turn per execution; `inline_conversation_bytes: 1` would have offloaded every conversation before the log.
    const runId = await start(turns, { turns_per_execution: 1, inline_conversation_bytes: 1 }, 20);
    // The gate stays open across the boundary: the run continues only once the reviewer answered.
    await decidePending(client, runId, { decision: 'reject', reason: 'not this quarter' });
    const v = await waitForRun(client, runId, done);
    expect(v.status).toBe('completed');
    expect(v.executions).toBe(5);
    const draftId = toolMessages(v).find((m) => m.tool_call_id === 'c1')!.values!.draft_id;
    expect(v.final_answer).toBe(`c3 denied, c4 blocked, draft ${String(draftId)}`);
    expect(toolMessages(v).find((m) => m.tool_call_id === 'c4')!.content).toMatch(/already rejected/);
    expect(await submissionsOf(stack.db, runId)).toHaveLength(0);

    // Every message but the final answer is in the log, once; no execution saved a conversation of its own.
    const logged = await stack.db.query<{ seq: number }>('SELECT seq FROM run_messages WHERE run_id = ? ORDER BY seq', [
      runId,
    ]);
    expect(logged.map((r) => Number(r.seq))).toEqual(v.messages.slice(0, -1).map((_, i) => i));
    expect(await stack.db.query('SELECT execution FROM run_conversations WHERE run_id = ?', [runId])).toEqual([]);
    const { events, verified } = await runTrail(runId);
    expect(verified.ok).toBe(true);
    const continued = events.filter((e) => e.event_type === 'run.continued');
    expect(continued.map((e) => e.data.execution)).toEqual([2, 3, 4, 5]);
    expect(continued.every((e) => typeof e.data.conversation_head === 'string')).toBe(true);
    await expectReplays(runId, 5);
  });

  it('counts max_turns across executions', async () => {
    const turns: ScriptedTurn[] = Array.from({ length: 5 }, (_, t) => ({
      content: '',
      tool_calls: [{ id: `q${t}`, name: 'search_trip_policy', args: { query: 'days' } }],
    }));
    const runId = await start(turns, { turns_per_execution: 1 }, 3);
    const v = await waitForRun(client, runId, done);
    expect(v).toMatchObject({ status: 'failed', executions: 3, turns: 3 });
    expect(v.error).toMatch(/no final answer after 3 model calls/);
    expect(toolMessages(v).map((m) => m.tool_call_id)).toEqual(['q0', 'q1', 'q2']);
    expect((await runTrail(runId)).verified.ok).toBe(true);
  });

  it('runs a long conversation in one execution when the limits allow it', async () => {
    const turns: ScriptedTurn[] = [
      { content: '', tool_calls: [{ id: 'q1', name: 'search_trip_policy', args: { query: 'days' } }] },
      { content: '', tool_calls: [{ id: 'q2', name: 'search_trip_policy', args: { query: 'budget' } }] },
      { content: 'done' },
    ];
    const runId = await start(turns, undefined, 20);
    const v = await waitForRun(client, runId, done);
    expect(v).toMatchObject({ status: 'completed', executions: 1, turns: 3 });
  });
});
