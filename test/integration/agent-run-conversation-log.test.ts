import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/worker/activities';
import { RunClient } from '../../src/client/run-client';
import { validateConversation, type AssistantMessage, type Message } from '../../src/common/conversation';
import { tripDomain } from '../../examples/trip';
import type { ModelInput } from '../../src/common/model-spec';
import { ConversationStore } from '../../src/store/conversation-store';
import { openSqlite, type Db } from '../../src/store/db';
import type { RunInput, RunView } from '../../src/workflow/agent-run/messages';
import { createModel } from '../../src/worker/models';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';
import { waitForRun } from '../support/run-harness';

// A conversation larger than Temporal's 2 MB payload limit: model calls, hand-overs
// (continue-as-new) and views name the stored conversation log instead of carrying it.

const TURNS = 12;
/** The payload size from which the SDK warns (Temporal refuses 2 MB). */
const WARN_BYTES = 512 * 1024;
/** Reply sizes alternate below and above LOG_LIMITS.inline_bytes, so some tails ride inline and some are written first. */
const replyBytes = (turn: number): number => (turn % 2 ? 300_000 : 150_000);

/** What the model saw on each call: the message count and the reply each earlier turn left. */
const calls: { count: number; replies: string[] }[] = [];
/** When set, the first call of a run waits for it (its activity has written the goal to the log by then). */
let holdFirstCall: Promise<void> | undefined;

/** A model whose replies are large: turn t calls a safe tool with t's marker, then the last turn answers. */
function bulkyModel() {
  return {
    async next({ messages }: ModelInput): Promise<AssistantMessage> {
      const replies = messages.filter((m) => m.role === 'assistant').map((m) => m.content.slice(0, 12));
      calls.push({ count: messages.length, replies });
      const turn = replies.length;
      if (turn === 0 && holdFirstCall) await holdFirstCall;
      if (turn >= TURNS) return { role: 'assistant', content: `done after ${turn} turns, ${messages.length} messages` };
      return {
        role: 'assistant',
        content: `turn ${String(turn).padStart(3, '0')} `.padEnd(replyBytes(turn), 'x'),
        tool_calls: [{ id: `c${turn}`, name: 'search_trip_policy', args: { query: 'budget' } }],
      };
    },
  };
}

let client: Client;
let connection: Connection;
let db: Db;
let worker: RunningWorker;
let activities: Awaited<ReturnType<typeof createActivities>>['activities'];

beforeAll(async () => {
  ({ client, connection } = await testClient());
  db = openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gate-log-')), 'gate.db'));
  ({ activities } = await createActivities({
    db,
    domains: [tripDomain],
    createModel: (spec) => (spec.kind === 'openai' && spec.model === 'bulky' ? bulkyModel() : createModel(spec)),
  }));
  worker = await startTestWorker(activities);
});
afterAll(async () => {
  await worker.stop();
  await db.close();
  await connection.close();
});

/** A run on the bulky model. */
const bulkyRun = (runId: string, extra: Partial<RunInput> = {}): RunInput => ({
  run_id: runId,
  goal: 'Read the travel policy, at length',
  domain: 'trip',
  model: { kind: 'openai', model: 'bulky' },
  agent_id: 'agent-1',
  approval_ttl_seconds: 600,
  max_turns: 40,
  ...extra,
});

/** Every execution's history of the run, oldest first. */
async function executionHistories(runId: string) {
  const out = [];
  for (let execRunId: string | undefined; ;) {
    const history = await client.workflow.getHandle(runId, execRunId).fetchHistory();
    out.unshift(history);
    execRunId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!execRunId) return out;
  }
}

/** The largest payload (bytes of data) anywhere in the histories. */
function largestPayload(histories: Awaited<ReturnType<typeof executionHistories>>): number {
  let max = 0;
  const visit = (v: unknown): void => {
    if (!v || typeof v !== 'object') return;
    const data = (v as { data?: unknown }).data;
    if (data instanceof Uint8Array && 'metadata' in v) max = Math.max(max, data.length);
    for (const x of Object.values(v)) visit(x);
  };
  visit(histories);
  return max;
}

describe('agentRun conversation log', () => {
  it('runs a conversation past 2 MB: no payload carries it, the model sees all of it, GET shows every message', async () => {
    const runId = `run_${randomUUID().slice(0, 12)}`;
    const input = bulkyRun(runId, { continue_as_new: { turns_per_execution: 5 } });
    await client.workflow.start('agentRunWorkflow', {
      workflowId: runId,
      taskQueue: worker.taskQueue,
      args: [input],
      memo: { agent_id: 'agent-1' },
    });
    const done = (v: RunView) => ['completed', 'failed', 'cancelled'].includes(v.status);
    const end = await waitForRun(client, runId, done, 120_000);
    expect(end).toMatchObject({ status: 'completed', executions: 3, turns: TURNS + 1 });

    // The workflow's own answer leaves the oldest messages out and names them in the store.
    const total = TURNS * 2 + 2; // goal, TURNS x (reply + tool result), final answer
    expect(end.messages_omitted).toBeGreaterThan(0);
    expect(end.messages.length + end.messages_omitted!).toBe(total);
    expect(Buffer.byteLength(JSON.stringify(end))).toBeLessThan(WARN_BYTES);

    // Every model call saw the whole conversation: each earlier reply, in order, across executions.
    expect(calls).toHaveLength(TURNS + 1);
    calls.forEach((c, turn) => {
      expect(c.count).toBe(2 + 2 * turn); // the system prompt, the goal, then a reply and a result per turn
      expect(c.replies).toEqual(Array.from({ length: turn }, (_, t) => `turn ${String(t).padStart(3, '0')} xxx`));
    });

    // RunClient (GET /v1/runs/{id}) reads the omitted messages back and checks them against the chain.
    const runs = new RunClient(client, { taskQueue: worker.taskQueue, conversations: new ConversationStore(db) });
    const full = await runs.get(runId);
    expect(full.messages).toHaveLength(total);
    expect(full.messages_omitted).toBeUndefined();
    expect(validateConversation(full.messages)).toEqual([]);
    expect(Buffer.byteLength(JSON.stringify(full.messages))).toBeGreaterThan(2 * 1024 * 1024);
    expect(full.final_answer).toBe(`done after ${TURNS} turns, ${2 + 2 * TURNS} messages`);

    // Without the store the client says why it cannot show the run, rather than a partial conversation.
    await expect(new RunClient(client, { taskQueue: worker.taskQueue }).get(runId)).rejects.toMatchObject({
      status: 503,
      code: 'conversation_unavailable',
    });

    // No payload in any execution's history comes near the limit, and each execution replays.
    const histories = await executionHistories(runId);
    expect(histories).toHaveLength(3);
    const scheduled = histories.flatMap((h) =>
      (h.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean),
    );
    expect(scheduled.filter((a) => a === 'callModel')).toHaveLength(TURNS + 1);
    // The 300 KB replies are written before the next call (their tail is over the inline budget) ...
    expect(scheduled.filter((a) => a === 'storeMessages').length).toBeGreaterThanOrEqual(TURNS / 2);
    // ... and each later execution reads the log back in pages, none of which is a whole conversation.
    expect(scheduled.filter((a) => a === 'loadMessages').length).toBeGreaterThanOrEqual(4);
    expect(scheduled).not.toContain('saveConversation');
    expect(largestPayload(histories)).toBeLessThan(WARN_BYTES);
    const errors: unknown[] = [];
    for await (const r of Worker.runReplayHistories(
      { workflowBundle: { codePath: process.env.GATE_TEST_WORKFLOW_BUNDLE! }, replayName: 'conversation-log-replay' },
      histories.map((history) => ({ workflowId: runId, history })),
    ))
      errors.push(r.error ?? null);
    expect(errors).toEqual([null, null, null]);
  }, 180_000);

  it('fails the run, not the model call, when a stored message was altered', async () => {
    const runId = `run_${randomUUID().slice(0, 12)}`;
    calls.length = 0;
    let release!: () => void;
    holdFirstCall = new Promise<void>((r) => (release = r));
    const store = new ConversationStore(db);
    const input = bulkyRun(runId);
    const handle = await client.workflow.start('agentRunWorkflow', {
      workflowId: runId,
      taskQueue: worker.taskQueue,
      args: [input],
      memo: { agent_id: 'agent-1' },
    });
    // While the first call waits, its goal is in the log: alter it there; the next call's chain check must catch it.
    for (const deadline = Date.now() + 30_000; calls.length === 0 && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 50));
    expect(await store.messages(runId, 0, 1)).toEqual([JSON.stringify({ role: 'user', content: input.goal })]);
    const altered: Message = { role: 'user', content: 'something else' };
    await store.putMessages(runId, 0, [altered]);
    holdFirstCall = undefined;
    release();
    const end = await waitForRun(client, runId, (v) => ['completed', 'failed'].includes(v.status), 60_000);
    expect(end.status).toBe('failed');
    expect(end.error_type).toBe('BrokenConversation');
    expect(end.error).toMatch(/hash chain mismatch/);
    await expect(handle.result()).rejects.toThrow();
  }, 120_000);
});
