// approval-gate/langchain: the same agent as with `humanInTheLoopMiddleware`; the decisions come from gates.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { createAgent, tool } from 'langchain';
import { z } from 'zod';
import { approvalGateMiddleware, httpGate } from 'approval-gate/langchain';
import { lookupCharge, refundCharge } from './payments';

const refund = tool(refundCharge, {
  name: 'refund',
  description: 'Refund a charge',
  schema: z.object({ charge: z.string(), amount: z.number().int().positive() }),
});
const lookup = tool(lookupCharge, {
  name: 'lookup',
  description: 'Look a charge up',
  schema: z.object({ charge: z.string() }),
});

/** One user request on a thread; `invoke` returns once every gate of the turn is decided. */
export async function handleRequest(model: BaseChatModel, threadId: string, request: string) {
  const agent = createAgent({
    model,
    tools: [refund, lookup],
    middleware: [
      approvalGateMiddleware({
        gate: httpGate({
          url: process.env.GATE_URL ?? 'http://127.0.0.1:8787',
          agentKey: process.env.GATE_AGENT_KEY!,
          agentId: 'refund-bot',
        }),
        interruptOn: {
          refund: { description: (call) => `refund ${String(call.args.amount)} on ${String(call.args.charge)}` },
        },
        ttlSeconds: 900,
        describe: (call) => ({ target: `charge:${(call.args as { charge: string }).charge}` }),
      }),
    ],
  });
  return agent.invoke({ messages: [{ role: 'user', content: request }] }, { configurable: { thread_id: threadId } });
}
