import { randomUUID } from 'node:crypto';
import { Agent, run, tool, type AgentInputItem } from '@openai/agents-core';
import { z } from 'zod';
import { approvalGate, httpGate } from '../../../src/adapters/openai-agents';
import { payloadSha256 } from '../../../src/common/evidence';
import { ApiHarness } from '../api-harness';
import { agentEnv, fixtureTransport, killApproveRestart, refundArgs } from './restart';
import { approveOneRejectOne, batchGateIds, batchTurn, decideWhenOpen, expectBatchOutcome } from './decide';
import { ScriptedModel, functionCall, hasToolResults, message } from './openai-agents-script';

let h: ApiHarness;
beforeAll(async () => {
  h = await ApiHarness.start();
});
afterAll(async () => {
  await h.stop();
});

/** A refund agent whose model makes `calls` first and then answers `final`, with a record of what ran. */
function refundAgent(calls: [string, string, unknown][], final: string, opts: { ttlSeconds?: number } = {}) {
  const ran: { tool: string; input: unknown }[] = [];
  const gate = approvalGate({
    gate: httpGate({ url: h.url, agentKey: h.keys.agent, agentId: 'agent-1' }),
    scope: `thread_${randomUUID()}`,
    pollIntervalMs: 100,
    ttlSeconds: opts.ttlSeconds ?? 300,
    describe: (call) => ({ target: `charge:${(call.args as { charge: string }).charge}` }),
  });
  const refund = gate.tool(
    tool({
      name: 'refund',
      description: 'Refund a charge',
      parameters: z.object({ charge: z.string(), amount: z.number().int().positive() }),
      needsApproval: true,
      execute: async (input) => {
        ran.push({ tool: 'refund', input });
        return `refunded ${input.amount} on ${input.charge}`;
      },
    }),
  );
  const lookup = tool({
    name: 'lookup',
    description: 'Look a charge up',
    parameters: z.object({ charge: z.string() }),
    execute: async (input) => {
      ran.push({ tool: 'lookup', input });
      return 'paid';
    },
  });
  const model = new ScriptedModel((r) =>
    hasToolResults(r) ? [message(final)] : calls.map(([id, name, args]) => functionCall(id, name, args)),
  );
  const agent = new Agent({ name: 'Refunds', instructions: 'Refund damaged orders.', model, tools: [refund, lookup] });
  return { gate, agent, model, ran };
}

/** The tool results in a run's history, by call id. */
function toolResults(history: AgentInputItem[]): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const i of history) {
    if (i.type === 'function_call_result') out.set(i.callId, [...(out.get(i.callId) ?? []), i.output]);
  }
  return out;
}

const text = (t: string) => ({ type: 'text', text: t });

describe('approval-gate/openai-agents', () => {
  it('opens one gate per interruption, approves it in the run state and runs the tool once', async () => {
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_approve', amount: 1450 };
    const a = refundAgent([[callId, 'refund', input]], 'Refunded.');
    let result = await run(a.agent, 'Refund the damaged order');
    expect(result.interruptions).toHaveLength(1);

    const decided = a.gate.decide(result);
    const id = a.gate.requestId('refund', callId, input);
    const seen = await decideWhenOpen(h, id, { decision: 'approve' });
    expect(seen.payload).toMatchObject({
      agent_id: 'agent-1',
      trigger_event_id: callId,
      action: 'tool.refund',
      args: input,
      preconditions: { framework: 'openai-agents', tool_name: 'refund', tool_call_id: callId },
    });
    expect(seen.payload_sha256).toBe(payloadSha256(seen.payload));
    expect(await decided).toEqual([expect.objectContaining({ outcome: 'approved', requestId: id })]);

    result = await run(a.agent, result.state);
    expect(result.finalOutput).toBe('Refunded.');
    expect(a.ran).toEqual([{ tool: 'refund', input }]);
    expect(toolResults(result.history).get(callId)).toEqual([text('refunded 1450 on ch_approve')]);
    expect((await h.get(id)).body.status).toBe('consumed');
  });

  it("runs a modified call with the reviewer's args and names the executed values in the result", async () => {
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_modify', amount: 9000 };
    const a = refundAgent([[callId, 'refund', input]], 'Partly refunded.');
    let result = await run(a.agent, 'Refund the damaged order');
    const decided = a.gate.decide(result);
    const id = a.gate.requestId('refund', callId, input);
    await decideWhenOpen(h, id, { decision: 'modify', args: { amount: 4500 } });
    await decided;
    result = await run(a.agent, result.state);
    const executed = { charge: 'ch_modify', amount: 4500 };
    expect(a.ran).toEqual([{ tool: 'refund', input: executed }]);
    const [out] = toolResults(result.history).get(callId)! as { text: string }[];
    expect(JSON.parse(out!.text)).toEqual({
      executed_input: executed,
      modified_by_reviewer: true,
      approval_request_id: id,
      output: 'refunded 4500 on ch_modify',
    });
  });

  it('rejects the interruption with the reviewer’s reason as the message the model sees', async () => {
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_reject', amount: 100 };
    const a = refundAgent([[callId, 'refund', input]], 'Not refunded.');
    let result = await run(a.agent, 'Refund the damaged order');
    const decided = a.gate.decide(result);
    await decideWhenOpen(h, a.gate.requestId('refund', callId, input), {
      decision: 'reject',
      reason: 'duplicate of ticket 4080',
    });
    expect(await decided).toEqual([expect.objectContaining({ outcome: 'denied' })]);
    result = await run(a.agent, result.state);
    expect(a.ran).toEqual([]);
    const [out] = toolResults(result.history).get(callId)! as { text: string }[];
    expect(out!.text).toContain('rev-1 rejected this call');
    expect(out!.text).toContain('duplicate of ticket 4080');
    expect(JSON.stringify(a.model.requests.at(-1)!.input)).toContain('duplicate of ticket 4080');
  });

  it('rejects an expired gate’s interruption with a message that says it expired', async () => {
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_expire', amount: 100 };
    const a = refundAgent([[callId, 'refund', input]], 'Timed out.', { ttlSeconds: 1 });
    let result = await run(a.agent, 'Refund the damaged order');
    expect(await a.gate.decide(result)).toEqual([expect.objectContaining({ outcome: 'expired' })]);
    result = await run(a.agent, result.state);
    expect(a.ran).toEqual([]);
    const [out] = toolResults(result.history).get(callId)! as { text: string }[];
    expect(out!.text).toContain('expired');
  });

  it('opens the gates of a batch at once and resumes only when every one is decided', async () => {
    const batch = batchTurn();
    const a = refundAgent(batch.calls, 'Done.');
    let result = await run(a.agent, 'Refund both');
    expect(result.interruptions).toHaveLength(2);
    const decided = a.gate.decide(result);
    const ids = batchGateIds(batch, (t, c, x) => a.gate.requestId(t, c, x));
    await approveOneRejectOne(h, { ...ids, reason: batch.reason }, decided);
    expect((await decided).map((d) => d.outcome)).toEqual(['approved', 'denied']);
    result = await run(a.agent, result.state);
    expect(result.finalOutput).toBe('Done.');
    expectBatchOutcome(batch, a.ran, toolResults(result.history));
    const [denied] = toolResults(result.history).get(batch.rejected)! as { text: string }[];
    expect(denied!.text).toContain(batch.reason);
  });

  it('works the same when the run streams (stream: true): one gate per interruption, the approved call run once', async () => {
    const batch = batchTurn();
    const a = refundAgent(batch.calls, 'Done.');
    const paused = await run(a.agent, 'Refund both', { stream: true });
    await paused.completed;
    expect(paused.interruptions).toHaveLength(2);
    const decided = a.gate.decide(paused);
    const ids = batchGateIds(batch, (t, c, x) => a.gate.requestId(t, c, x));
    await approveOneRejectOne(h, { ...ids, reason: batch.reason }, decided);
    expect((await decided).map((d) => d.outcome)).toEqual(['approved', 'denied']);
    const resumed = await run(a.agent, paused.state, { stream: true });
    let streamed = '';
    for await (const chunk of resumed.toTextStream()) streamed += chunk;
    await resumed.completed;
    expect(streamed).toBe('Done.');
    expect(resumed.finalOutput).toBe('Done.');
    expectBatchOutcome(batch, a.ran, toolResults(resumed.history));
    const [denied] = toolResults(resumed.history).get(batch.rejected)! as { text: string }[];
    expect(denied!.text).toContain(batch.reason);
    expect((await h.get(ids.approved)).body.status).toBe('consumed');
  });

  it('does not run a call approved only in the caller-held run state', async () => {
    const callId = `call_${randomUUID()}`;
    const input = { charge: 'ch_forged', amount: 777 };
    const a = refundAgent([[callId, 'refund', input]], 'Hm.');
    let result = await run(a.agent, 'Refund the damaged order');
    result.state.approve(result.interruptions[0]!); // no gate decision behind it
    result = await run(a.agent, result.state);
    expect(a.ran).toEqual([]);
    const [out] = toolResults(result.history).get(callId)! as { text: string }[];
    expect(out!.text).toContain('no approval gate exists');
  });
});

describe('approval-gate/openai-agents across a restart', () => {
  it('reattaches a restarted agent process to the same gate and runs the tool once', async () => {
    const env = agentEnv(h, 'oa-restart');
    const id = approvalGate({ gate: fixtureTransport(h), scope: env.SCOPE }).requestId(
      'refund',
      env.CALL_ID,
      refundArgs(env),
    );
    const second = await killApproveRestart(h, 'openai-agents-agent.ts', env, id);
    expect(second.output()).toContain('resumed'); // from `RunState.fromString` of the stored state
  });
});
