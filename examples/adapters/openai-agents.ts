// approval-gate/openai-agents: the same agent and run loop as with the SDK's own approvals; the decisions come from gates.
import { Agent, run, tool, type Model } from '@openai/agents-core';
import { z } from 'zod';
import { approvalGate, httpGate } from 'approval-gate/openai-agents';
import { lookupCharge, refundCharge } from './payments';

/** One user request on a thread, run until the agent's final answer. */
export async function handleRequest(model: Model, threadId: string, request: string) {
  const gate = approvalGate({
    gate: httpGate({
      url: process.env.GATE_URL ?? 'http://127.0.0.1:8787',
      agentKey: process.env.GATE_AGENT_KEY!,
      agentId: 'refund-bot',
    }),
    scope: threadId,
    ttlSeconds: 900,
    describe: (call) => ({ target: `charge:${(call.args as { charge: string }).charge}` }),
  });
  const refund = gate.tool(
    tool({
      name: 'refund',
      description: 'Refund a charge',
      parameters: z.object({ charge: z.string(), amount: z.number().int().positive() }),
      needsApproval: true,
      execute: refundCharge,
    }),
  );
  const lookup = tool({
    name: 'lookup',
    description: 'Look a charge up',
    parameters: z.object({ charge: z.string() }),
    execute: lookupCharge,
  });
  const agent = new Agent({ name: 'Refunds', instructions: 'Refund damaged orders.', model, tools: [refund, lookup] });
  let result = await run(agent, request);
  while (result.interruptions.length > 0) {
    await gate.decide(result); // one gate per interruption; state.approve / state.reject({ message })
    result = await run(agent, result.state);
  }
  return result;
}
