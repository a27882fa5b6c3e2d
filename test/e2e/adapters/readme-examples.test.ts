import { approvalGate, httpGate } from '../../../src/adapters/ai-sdk';
import { gateRequestIdFor } from '../../../src/adapters/langchain';
import { approvalGate as openaiAgentsGate } from '../../../src/adapters/openai-agents';
import { ApiHarness } from '../api-harness';
import { startAgent } from './agent-process';
import { decideWhenOpen } from './decide';
import { agentEnv, gatesFor } from './restart';

// The "after" snippets of docs/adapters/ are the files of examples/adapters, shown verbatim
// (test/unit/readme-examples.test.ts); here each runs as it is, in its own process
// (test/fixtures/adapters/readme-example.ts gives it the framework's offline test model),
// against the dev server, the gate worker and the HTTP API, as the agent `refund-bot`.

let h: ApiHarness;
let agentKey: string;
beforeAll(async () => {
  h = await ApiHarness.start();
  agentKey = await h.createKey('agent', 'refund-bot');
});
afterAll(async () => {
  await h.stop();
});

/** The gate id each example opens for the refund call (the adapters derive it the same way in every process). */
const gateIds = {
  'ai-sdk': (scope: string, callId: string, args: unknown) =>
    approvalGate({ gate: transport(), scope }).requestId('refund', callId, args),
  'openai-agents': (scope: string, callId: string, args: unknown) =>
    openaiAgentsGate({ gate: transport(), scope }).requestId('refund', callId, args),
  langchain: (thread: string, callId: string) =>
    gateRequestIdFor({ gate: transport() }, { name: 'refund', id: callId }, thread),
};
const transport = () => httpGate({ url: h.url, agentKey, agentId: 'refund-bot' });

describe.each(Object.keys(gateIds) as (keyof typeof gateIds)[])('examples/adapters/%s.ts', (framework) => {
  it("opens one gate for the refund (none for the lookup) and refunds with the reviewer's amount", async () => {
    const env = {
      ...agentEnv(h, `readme-${framework}`),
      FRAMEWORK: framework,
      GATE_URL: h.url,
      GATE_AGENT_KEY: agentKey,
    };
    const args = { charge: env.CHARGE, amount: 2500 };
    const id = gateIds[framework](env.SCOPE, env.CALL_ID, args);
    const agent = startAgent('readme-example.ts', env);
    try {
      const seen = await decideWhenOpen(h, id, { decision: 'modify', args: { amount: 600 } });
      expect(seen.payload).toMatchObject({
        agent_id: 'refund-bot',
        action: 'tool.refund',
        target: `charge:${env.CHARGE}`,
        args,
        trigger_event_id: env.CALL_ID,
      });
      // LangChain's example sets the reviewer's line through `interruptOn[tool].description`.
      if (framework === 'langchain') expect(seen.payload.summary).toBe(`refund 2500 on ${env.CHARGE}`);
      expect(await agent.exited).toEqual({ code: 0, signal: null });
    } finally {
      await agent.kill();
    }
    const lines = agent.output().trim().split('\n');
    const r = JSON.parse(lines[lines.length - 1]!);
    const executed = { charge: env.CHARGE, amount: 600 };
    expect(r.refunds).toEqual([executed]);
    expect(r.final).toBe('Refunded.');
    // The model is told which values ran.
    expect(r.refundResult).toEqual(
      framework === 'langchain'
        ? { call: executed, output: `refunded 600 on ${env.CHARGE}` }
        : {
            executed_input: executed,
            modified_by_reviewer: true,
            approval_request_id: id,
            output: `refunded 600 on ${env.CHARGE}`,
          },
    );
    expect((await h.get(id)).body.status).toBe('consumed');
    expect(await gatesFor(h, `charge:${env.CHARGE}`)).toEqual([id]);
  });
});
