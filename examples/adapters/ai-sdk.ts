// approval-gate/ai-sdk: the same tools and loop as with the SDK's own approvals; the answers come from gates.
import { generateText, tool, type LanguageModel, type ModelMessage } from 'ai';
import { z } from 'zod';
import { approvalGate, httpGate } from 'approval-gate/ai-sdk';
import { lookupCharge, refundCharge } from './payments';

/** One user request in a conversation: the model's turn and, once the gates are decided, the turn after. */
export async function handleRequest(model: LanguageModel, conversationId: string, messages: ModelMessage[]) {
  const gate = approvalGate({
    gate: httpGate({
      url: process.env.GATE_URL ?? 'http://127.0.0.1:8787',
      agentKey: process.env.GATE_AGENT_KEY!,
      agentId: 'refund-bot',
    }),
    scope: conversationId,
    ttlSeconds: 900,
    describe: (call) => ({ target: `charge:${(call.args as { charge: string }).charge}` }),
  });
  const tools = gate.tools({
    refund: tool({
      inputSchema: z.object({ charge: z.string(), amount: z.number().int().positive() }),
      needsApproval: true,
      execute: refundCharge,
    }),
    lookup: tool({ inputSchema: z.object({ charge: z.string() }), execute: lookupCharge }),
  });
  const result = await generateText({ model, tools, messages });
  messages.push(...result.response.messages);
  const answer = await gate.respond(messages); // one gate per pending approval request; waits for all
  if (answer) {
    messages.push(answer);
    const next = await generateText({ model, tools, messages });
    messages.push(...next.response.messages);
  }
  return messages;
}
