import { randomUUID } from 'node:crypto';
import { AIMessage, ToolMessage, createAgent, tool, type BaseMessage } from 'langchain';
import { z } from 'zod';
import { approvalGateMiddleware, gateRequestIdFor, httpGate } from '../../../src/adapters/langchain';
import { payloadSha256 } from '../../../src/common/evidence';
import { ApiHarness } from '../api-harness';
import { agentEnv, fixtureTransport, killApproveRestart } from './restart';
import { approveOneRejectOne, batchTurn, decideWhenOpen, expectBatchOutcome } from './decide';
import { ScriptedChatModel, callTools, hasToolResults } from './langchain-script';

let h: ApiHarness;
beforeAll(async () => {
  h = await ApiHarness.start();
});
afterAll(async () => {
  await h.stop();
});

/** A refund agent whose model makes `calls` first and then answers `final`, with a record of what ran. */
function refundAgent(
  calls: [string, string, Record<string, unknown>][],
  final: string,
  o: { ttlSeconds?: number } = {},
) {
  const ran: { tool: string; input: unknown }[] = [];
  const gate = httpGate({ url: h.url, agentKey: h.keys.agent, agentId: 'agent-1' });
  const refund = tool(
    async (input: { charge: string; amount: number }) => {
      ran.push({ tool: 'refund', input });
      return `refunded ${input.amount} on ${input.charge}`;
    },
    {
      name: 'refund',
      description: 'Refund a charge',
      schema: z.object({ charge: z.string(), amount: z.number().int().positive() }),
    },
  );
  const lookup = tool(
    async (input: { charge: string }) => {
      ran.push({ tool: 'lookup', input });
      return 'paid';
    },
    { name: 'lookup', description: 'Look a charge up', schema: z.object({ charge: z.string() }) },
  );
  const model = new ScriptedChatModel((messages) =>
    hasToolResults(messages) ? new AIMessage(final) : callTools(...calls),
  );
  const agent = createAgent({
    model,
    tools: [refund, lookup],
    middleware: [
      approvalGateMiddleware({
        gate,
        interruptOn: { refund: true },
        pollIntervalMs: 100,
        ttlSeconds: o.ttlSeconds ?? 300,
        describe: (call) => ({ target: `charge:${(call.args as { charge: string }).charge}` }),
      }),
    ],
  });
  const thread = `thread_${randomUUID()}`;
  return {
    agent,
    model,
    ran,
    thread,
    requestId: (name: string, id: string) => gateRequestIdFor({ gate }, { name, id }, thread),
    invoke: () =>
      agent.invoke(
        { messages: [{ role: 'user', content: 'Refund the damaged order' }] },
        { configurable: { thread_id: thread } },
      ),
  };
}

/** The tool messages of a conversation, by call id. */
function toolResults(messages: BaseMessage[]): Map<string, ToolMessage[]> {
  const out = new Map<string, ToolMessage[]>();
  for (const m of messages)
    if (ToolMessage.isInstance(m)) out.set(m.tool_call_id, [...(out.get(m.tool_call_id) ?? []), m]);
  return out;
}

describe('approval-gate/langchain', () => {
  it('waits on one gate per gated call and runs the tool once after approval', async () => {
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_approve', amount: 1450 };
    const a = refundAgent([[callId, 'refund', input]], 'Refunded.');
    const running = a.invoke();
    const id = a.requestId('refund', callId);
    const seen = await decideWhenOpen(h, id, { decision: 'approve' });
    expect(seen.payload).toMatchObject({
      agent_id: 'agent-1',
      trigger_event_id: callId,
      correlation_id: a.thread,
      action: 'tool.refund',
      args: input,
      preconditions: { framework: 'langchain', tool_name: 'refund', tool_call_id: callId },
    });
    expect(seen.payload_sha256).toBe(payloadSha256(seen.payload));
    const result = await running;
    expect(result.messages.at(-1)!.content).toBe('Refunded.');
    expect(a.ran).toEqual([{ tool: 'refund', input }]);
    expect(
      toolResults(result.messages)
        .get(callId)!
        .map((m) => m.content),
    ).toEqual(['refunded 1450 on ch_approve']);
    expect((await h.get(id)).body.status).toBe('consumed');
  });

  it("edits the call to the reviewer's args, so the AI message and the tool run carry the executed values", async () => {
    const callId = `call_${randomUUID()}`;
    const a = refundAgent([[callId, 'refund', { charge: 'ch_modify', amount: 9000 }]], 'Partly refunded.');
    const running = a.invoke();
    await decideWhenOpen(h, a.requestId('refund', callId), { decision: 'modify', args: { amount: 4500 } });
    const result = await running;
    const executed = { charge: 'ch_modify', amount: 4500 };
    expect(a.ran).toEqual([{ tool: 'refund', input: executed }]);
    const ai = result.messages.find((m) => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0) as AIMessage;
    expect(ai.tool_calls).toEqual([expect.objectContaining({ id: callId, args: executed })]);
    expect(
      toolResults(result.messages)
        .get(callId)!
        .map((m) => m.content),
    ).toEqual(['refunded 4500 on ch_modify']);
  });

  it('answers a rejected call with a tool message carrying the reason and goes back to the model', async () => {
    const callId = `call_${randomUUID()}`;
    const a = refundAgent([[callId, 'refund', { charge: 'ch_reject', amount: 100 }]], 'Not refunded.');
    const running = a.invoke();
    await decideWhenOpen(h, a.requestId('refund', callId), { decision: 'reject', reason: 'duplicate of ticket 4080' });
    const result = await running;
    expect(a.ran).toEqual([]);
    const [msg] = toolResults(result.messages).get(callId)!;
    expect(msg!.status).toBe('error');
    expect(msg!.content).toContain('duplicate of ticket 4080');
    expect(result.messages.at(-1)!.content).toBe('Not refunded.');
    expect(a.model.calls).toHaveLength(2);
  });

  it('answers an expired gate with a tool message that says it expired', async () => {
    const callId = `call_${randomUUID()}`;
    const a = refundAgent([[callId, 'refund', { charge: 'ch_expire', amount: 100 }]], 'Timed out.', { ttlSeconds: 1 });
    const result = await a.invoke();
    expect(a.ran).toEqual([]);
    expect(String(toolResults(result.messages).get(callId)![0]!.content)).toContain('expired');
    expect((await h.get(a.requestId('refund', callId))).body.status).toBe('expired');
  });

  it('opens the gates of a batch at once and resumes only when every one is decided', async () => {
    const batch = batchTurn();
    const a = refundAgent(batch.calls, 'Done.');
    const running = a.invoke();
    const ids = { approved: a.requestId('refund', batch.approved), rejected: a.requestId('refund', batch.rejected) };
    // Nothing of the turn runs before the whole batch is decided.
    await approveOneRejectOne(h, { ...ids, reason: batch.reason }, running, () => expect(a.ran).toEqual([]));
    const result = await running;
    expectBatchOutcome(batch, a.ran, toolResults(result.messages));
    expect(toolResults(result.messages).get(batch.rejected)![0]!.content).toContain(batch.reason);
    expect(result.messages.at(-1)!.content).toBe('Done.');
  });

  it('works the same when the agent streams (stream, streamMode values): the approved call run once', async () => {
    const batch = batchTurn();
    const a = refundAgent(batch.calls, 'Done.');
    const states: { messages: BaseMessage[] }[] = [];
    const running = (async () => {
      const stream = await a.agent.stream(
        { messages: [{ role: 'user', content: 'Refund the damaged order' }] },
        { configurable: { thread_id: a.thread }, streamMode: 'values' },
      );
      for await (const state of stream) states.push(state);
    })();
    const ids = { approved: a.requestId('refund', batch.approved), rejected: a.requestId('refund', batch.rejected) };
    await approveOneRejectOne(h, { ...ids, reason: batch.reason }, running, () => expect(a.ran).toEqual([]));
    await running;
    expect(states.length).toBeGreaterThan(2); // the input, each step's state, the answer
    const last = states.at(-1)!.messages;
    expectBatchOutcome(batch, a.ran, toolResults(last));
    expect(toolResults(last).get(batch.rejected)![0]!.content).toContain(batch.reason);
    expect(last.at(-1)!.content).toBe('Done.');
    expect((await h.get(ids.approved)).body.status).toBe('consumed');
  });
});

describe('approval-gate/langchain across a restart', () => {
  it('reattaches a restarted agent process to the same gate and runs the tool once', async () => {
    const env = agentEnv(h, 'lc-restart'); // the fixture runs on thread env.SCOPE
    const id = gateRequestIdFor({ gate: fixtureTransport(h) }, { name: 'refund', id: env.CALL_ID }, env.SCOPE);
    await killApproveRestart(h, 'langchain-agent.ts', env, id);
  });
});
