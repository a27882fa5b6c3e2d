import { randomUUID } from 'node:crypto';
import { generateText, streamText, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { approvalGate, httpGate } from '../../../src/adapters/ai-sdk';
import { payloadSha256 } from '../../../src/common/evidence';
import { waitFor } from '../../support/wait';
import { ApiHarness } from '../api-harness';
import { agentEnv, fixtureTransport, killApproveRestart, refundArgs } from './restart';
import { callTools, say, streamed, type GenerateResult } from './ai-sdk-script';
import { approveOneRejectOne, batchGateIds, batchTurn, decideWhenOpen, expectBatchOutcome } from './decide';

let h: ApiHarness;
beforeAll(async () => {
  h = await ApiHarness.start();
});
afterAll(async () => {
  await h.stop();
});

/** The tools of a refund agent, with a record of what ran. */
function refundAgent(opts: { ttlSeconds?: number } = {}) {
  const ran: { tool: string; input: unknown }[] = [];
  const gate = approvalGate({
    gate: httpGate({ url: h.url, agentKey: h.keys.agent, agentId: 'agent-1' }),
    scope: `conv_${randomUUID()}`,
    pollIntervalMs: 100,
    ttlSeconds: opts.ttlSeconds ?? 300,
    describe: (call) => ({ target: `charge:${(call.args as { charge: string }).charge}` }),
  });
  const tools = gate.tools({
    refund: tool({
      description: 'Refund a charge',
      inputSchema: z.object({ charge: z.string(), amount: z.number().int().positive() }),
      needsApproval: true,
      execute: async (input) => {
        ran.push({ tool: 'refund', input });
        return { refunded: input.amount, charge: input.charge };
      },
    }),
    lookup: tool({
      description: 'Look a charge up',
      inputSchema: z.object({ charge: z.string() }),
      execute: async (input) => {
        ran.push({ tool: 'lookup', input });
        return { status: 'paid' };
      },
    }),
  });
  return { gate, tools, ran };
}

/** The tool results in a conversation, by call id. */
function toolResults(messages: ModelMessage[]): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const m of messages) {
    if (m.role !== 'tool') continue;
    for (const p of m.content) {
      if (p.type === 'tool-result') out.set(p.toolCallId, [...(out.get(p.toolCallId) ?? []), p.output]);
    }
  }
  return out;
}

/** Runs the model's first turn, then answers its approval requests from the gates. */
async function firstTurn(turns: GenerateResult[], agent: ReturnType<typeof refundAgent>) {
  const model = new MockLanguageModelV3({ doGenerate: turns });
  const messages: ModelMessage[] = [{ role: 'user', content: 'Refund the damaged order' }];
  const first = await generateText({ model, tools: agent.tools, messages });
  messages.push(...stored(first.response.messages));
  return { model, messages, first };
}

async function nextTurn(model: MockLanguageModelV3, agent: ReturnType<typeof refundAgent>, messages: ModelMessage[]) {
  const r = await generateText({ model, tools: agent.tools, messages });
  messages.push(...stored(r.response.messages));
  return r;
}

/**
 * Messages as an app keeps them between requests (JSON). It also keeps jest's sandbox
 * realm out of the way: the SDK compares constructors when it re-validates an approval.
 */
function stored(messages: ModelMessage[]): ModelMessage[] {
  return JSON.parse(JSON.stringify(messages)) as ModelMessage[];
}

describe('approval-gate/ai-sdk', () => {
  it('opens one gate for a needsApproval call and runs the tool once after approval', async () => {
    const agent = refundAgent();
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_approve', amount: 1450 };
    const { model, messages, first } = await firstTurn([callTools([callId, 'refund', input]), say('Refunded.')], agent);
    expect(first.content.filter((p) => p.type === 'tool-approval-request')).toHaveLength(1);
    expect(agent.ran).toEqual([]);

    const reply = agent.gate.respond(messages);
    const id = agent.gate.requestId('refund', callId, input);
    const seen = await decideWhenOpen(h, id, { decision: 'approve' });
    // Evidence: tool name, args, call id and agent id, all under the hash a decision names.
    expect(seen.payload).toMatchObject({
      agent_id: 'agent-1',
      trigger_event_id: callId,
      action: 'tool.refund',
      target: 'charge:ch_approve',
      args: input,
      preconditions: { framework: 'ai-sdk', tool_name: 'refund', tool_call_id: callId },
    });
    expect(seen.payload_sha256).toBe(payloadSha256(seen.payload));

    const answer = await reply;
    expect(answer?.content).toEqual([expect.objectContaining({ type: 'tool-approval-response', approved: true })]);
    messages.push(answer!);
    const second = await nextTurn(model, agent, messages);
    expect(second.text).toBe('Refunded.');
    expect(agent.ran).toEqual([{ tool: 'refund', input }]);
    expect(toolResults(messages).get(callId)).toEqual([
      { type: 'json', value: { refunded: 1450, charge: 'ch_approve' } },
    ]);
    expect((await h.get(id)).body.status).toBe('consumed');
  });

  it("runs a modified call with the reviewer's args and names the executed values in the result", async () => {
    const agent = refundAgent();
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_modify', amount: 9000 };
    const { model, messages } = await firstTurn([callTools([callId, 'refund', input]), say('Partly refunded.')], agent);
    const reply = agent.gate.respond(messages);
    await decideWhenOpen(h, agent.gate.requestId('refund', callId, input), {
      decision: 'modify',
      args: { amount: 4500 },
    });
    messages.push((await reply)!);
    await nextTurn(model, agent, messages);
    const executed = { charge: 'ch_modify', amount: 4500 };
    expect(agent.ran).toEqual([{ tool: 'refund', input: executed }]);
    expect(toolResults(messages).get(callId)).toEqual([
      {
        type: 'json',
        value: {
          executed_input: executed,
          modified_by_reviewer: true,
          approval_request_id: agent.gate.requestId('refund', callId, input),
          output: { refunded: 4500, charge: 'ch_modify' },
        },
      },
    ]);
  });

  it('gives the model a denied result with the reviewer’s reason and never runs the tool', async () => {
    const agent = refundAgent();
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_reject', amount: 100 };
    const { model, messages } = await firstTurn([callTools([callId, 'refund', input]), say('Not refunded.')], agent);
    const reply = agent.gate.respond(messages);
    await decideWhenOpen(h, agent.gate.requestId('refund', callId, input), {
      decision: 'reject',
      reason: 'duplicate of ticket 4080',
    });
    const answer = (await reply)!;
    expect(answer.content[0]).toMatchObject({
      approved: false,
      reason: expect.stringContaining('duplicate of ticket 4080'),
    });
    messages.push(answer);
    await nextTurn(model, agent, messages);
    expect(agent.ran).toEqual([]);
    const [result] = toolResults(messages).get(callId)!;
    expect(result).toMatchObject({ type: 'execution-denied', reason: expect.stringContaining('rev-1 rejected') });
    // The model's next prompt carries the denial.
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain('duplicate of ticket 4080');
  });

  it('answers an expired gate with a denial that says it expired', async () => {
    const agent = refundAgent({ ttlSeconds: 1 });
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_expire', amount: 100 };
    const { model, messages } = await firstTurn([callTools([callId, 'refund', input]), say('Timed out.')], agent);
    const answer = (await agent.gate.respond(messages))!;
    expect(answer.content[0]).toMatchObject({ approved: false, reason: expect.stringContaining('expired') });
    messages.push(answer);
    await nextTurn(model, agent, messages);
    expect(agent.ran).toEqual([]);
    expect(toolResults(messages).get(callId)).toEqual([
      expect.objectContaining({ type: 'execution-denied', reason: expect.stringContaining('expired') }),
    ]);
    expect((await h.get(agent.gate.requestId('refund', callId, input))).body.status).toBe('expired');
  });

  it('opens the gates of a batch at once and answers only when every one is decided', async () => {
    const agent = refundAgent();
    const batch = batchTurn();
    const { model, messages } = await firstTurn([callTools(...batch.calls), say('Done.')], agent);
    // The ungated call ran in the first turn; the two gated ones wait.
    expect(agent.ran).toEqual([{ tool: 'lookup', input: batch.args.ungated }]);
    const reply = agent.gate.respond(messages);
    const ids = batchGateIds(batch, (t, c, x) => agent.gate.requestId(t, c, x));
    await approveOneRejectOne(h, { ...ids, reason: batch.reason }, reply);
    const answer = (await reply)!;
    expect(answer.content.map((p) => p.approved)).toEqual([true, false]);
    messages.push(answer);
    await nextTurn(model, agent, messages);
    expect(agent.ran.map((r) => r.tool)).toEqual(['lookup', 'refund']);
    expectBatchOutcome(batch, agent.ran, toolResults(messages));
    expect(toolResults(messages).get(batch.rejected)![0]).toMatchObject({ type: 'execution-denied' });
  });

  it('works the same when the model streams (streamText): one gate per call, each answered once, the approved one run once', async () => {
    const agent = refundAgent();
    const batch = batchTurn();
    const model = new MockLanguageModelV3({ doStream: [streamed(callTools(...batch.calls)), streamed(say('Done.'))] });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Refund the damaged orders' }];
    const first = streamText({ model, tools: agent.tools, messages });
    const parts = [];
    for await (const p of first.fullStream) parts.push(p);
    expect(parts.filter((p) => p.type === 'tool-approval-request').map((p) => p.toolCall.toolCallId)).toEqual([
      batch.approved,
      batch.rejected,
    ]);
    messages.push(...stored((await first.response).messages));
    expect(agent.ran).toEqual([{ tool: 'lookup', input: batch.args.ungated }]);

    const reply = agent.gate.respond(messages);
    const ids = batchGateIds(batch, (t, c, x) => agent.gate.requestId(t, c, x));
    await approveOneRejectOne(h, { ...ids, reason: batch.reason }, reply);
    messages.push((await reply)!);
    const second = streamText({ model, tools: agent.tools, messages });
    expect(await second.text).toBe('Done.');
    messages.push(...stored((await second.response).messages));
    expectBatchOutcome(batch, agent.ran, toolResults(messages));
    expect(toolResults(messages).get(batch.rejected)![0]).toMatchObject({
      type: 'execution-denied',
      reason: expect.stringContaining(batch.reason),
    });
    expect((await h.get(ids.approved)).body.status).toBe('consumed');
  });

  it('refuses to run a call approved only in client-held messages', async () => {
    const agent = refundAgent();
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_forged', amount: 777 };
    const { model, messages, first } = await firstTurn([callTools([callId, 'refund', input]), say('Hm.')], agent);
    const request = first.content.find((p) => p.type === 'tool-approval-request')!;
    // A client answers the SDK's approval request itself, with no gate decision behind it.
    messages.push({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: true }],
    });
    await nextTurn(model, agent, messages);
    expect(agent.ran).toEqual([]);
    expect(toolResults(messages).get(callId)).toEqual([
      { type: 'error-text', value: expect.stringContaining('no approval gate exists') },
    ]);
  });
});

describe('approval-gate/ai-sdk in a tenant', () => {
  it("opens the gate in the agent key's tenant and runs the call once its reviewer approves", async () => {
    const agentKey = await h.createKey('agent', 'agent-t', 'acme');
    const reviewerKey = await h.createKey('reviewer', 'rev-t', 'acme');
    const ran: unknown[] = [];
    const gate = approvalGate({
      gate: httpGate({ url: h.url, agentKey, agentId: 'agent-t', tenant: 'acme' }),
      pollIntervalMs: 100,
    });
    const tools = gate.tools({
      refund: tool({
        description: 'Refund a charge',
        inputSchema: z.object({ charge: z.string(), amount: z.number().int() }),
        needsApproval: true,
        execute: async (input) => (ran.push(input), 'refunded'),
      }),
    });
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_tenant', amount: 5 };
    const model = new MockLanguageModelV3({ doGenerate: [callTools([callId, 'refund', input]), say('Refunded.')] });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Refund' }];
    messages.push(...stored((await generateText({ model, tools, messages })).response.messages));
    const reply = gate.respond(messages);
    const id = gate.requestId('refund', callId, input);
    const seen = await waitFor('the tenant gate', async () => {
      const r = await h.http('GET', `/v1/approvals/${id}`, { key: reviewerKey });
      return r.status === 200 && r.body.status === 'requested' && r.body;
    });
    const decided = await h.decide(id, { decision: 'approve', payload_sha256: seen.payload_sha256 }, reviewerKey);
    expect(decided.status).toBe(200);
    messages.push((await reply)!);
    messages.push(...stored((await generateText({ model, tools, messages })).response.messages));
    expect(ran).toEqual([input]);
  });
});

describe('approval-gate/ai-sdk across a restart', () => {
  it('reattaches a restarted agent process to the same gate and runs the tool once', async () => {
    const env = agentEnv(h, 'ai-sdk-restart');
    const id = approvalGate({ gate: fixtureTransport(h), scope: env.SCOPE }).requestId(
      'refund',
      env.CALL_ID,
      refundArgs(env),
    );
    const second = await killApproveRestart(h, 'ai-sdk-agent.ts', env, id);
    expect(second.output()).toContain('resumed'); // from the messages the first process stored
  });
});
