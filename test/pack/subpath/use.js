// Runs in a throwaway project that has the packed approval-gate and one framework, nothing
// else. Each scenario loads its adapter and framework through `load` (require in main.js,
// import() in main.mjs), drives the framework's own offline test model up to its approval
// hook and lets the adapter ask a gate server that is not there. It prints one JSON line.
'use strict';

const net = require('node:net');

/** A loopback URL nothing listens on: a port the system just handed out and took back. */
async function deadGateUrl() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** How a promise settled, as the test compares it. */
async function outcome(promise, adapter) {
  try {
    return { settled: 'resolved', value: await promise };
  } catch (err) {
    return {
      settled: 'rejected',
      name: err.name,
      message: err.message,
      isAdapterError: err instanceof adapter.GateAdapterError,
    };
  }
}

const functions = (m, names) => Object.fromEntries(names.map((n) => [n, typeof m[n]]));
const input = { charge: 'ch_pack', amount: 1200 };

const scenarios = {
  async 'ai-sdk'(load) {
    const adapter = await load('approval-gate/ai-sdk');
    const { generateText, tool, jsonSchema } = await load('ai');
    const { MockLanguageModelV3 } = await load('ai/test');
    const url = await deadGateUrl();
    const gate = adapter.approvalGate({ gate: adapter.httpGate({ url, agentKey: 'k', agentId: 'refund-bot' }) });
    const tools = gate.tools({
      refund: tool({
        inputSchema: jsonSchema({ type: 'object', properties: { charge: { type: 'string' } } }),
        needsApproval: true,
        execute: async () => 'refunded',
      }),
    });
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const model = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'refund', input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
    });
    const messages = [{ role: 'user', content: 'Refund the damaged order' }];
    const first = await generateText({ model, tools, messages });
    messages.push(...first.response.messages);
    return {
      functions: functions(adapter, ['approvalGate', 'httpGate', 'clientGate', 'pendingApprovals']),
      requestId: gate.requestId('refund', 'call_1', input),
      pending: adapter.pendingApprovals(messages).map((p) => p.callId),
      url,
      result: await outcome(gate.respond(messages), adapter),
    };
  },

  async 'openai-agents'(load) {
    const adapter = await load('approval-gate/openai-agents');
    const { Agent, Usage, run, tool } = await load('@openai/agents-core');
    const url = await deadGateUrl();
    const gate = adapter.approvalGate({ gate: adapter.httpGate({ url, agentKey: 'k', agentId: 'refund-bot' }) });
    const refund = gate.tool(
      tool({
        name: 'refund',
        description: 'Refund a charge',
        parameters: {
          type: 'object',
          properties: { charge: { type: 'string' } },
          required: [],
          additionalProperties: true,
        },
        strict: false,
        needsApproval: true,
        execute: async () => 'refunded',
      }),
    );
    // A scripted Model: the SDK's own interface, no network.
    const model = {
      async getResponse() {
        const call = { type: 'function_call', callId: 'call_1', name: 'refund', arguments: JSON.stringify(input) };
        return { usage: new Usage(), output: [{ ...call, id: 'fc_1', status: 'completed' }], responseId: 'r1' };
      },
      async *getStreamedResponse() {
        throw new Error('not streamed');
      },
    };
    const agent = new Agent({ name: 'Refunds', instructions: 'Refund damaged orders.', model, tools: [refund] });
    const result = await run(agent, 'Refund the damaged order');
    return {
      functions: functions(adapter, ['approvalGate', 'httpGate', 'clientGate']),
      requestId: gate.requestId('refund', 'call_1', input),
      pending: result.interruptions.map((i) => i.rawItem.callId),
      url,
      result: await outcome(gate.decide(result), adapter),
    };
  },

  async langchain(load) {
    const adapter = await load('approval-gate/langchain');
    const { FakeToolCallingModel, createAgent, tool } = await load('langchain');
    const url = await deadGateUrl();
    const gateServer = adapter.httpGate({ url, agentKey: 'k', agentId: 'refund-bot' });
    const refund = tool(async () => 'refunded', {
      name: 'refund',
      description: 'Refund a charge',
      schema: { type: 'object', properties: { charge: { type: 'string' }, amount: { type: 'number' } } },
    });
    const agent = createAgent({
      model: new FakeToolCallingModel({ toolCalls: [[{ id: 'call_1', name: 'refund', args: input }], []] }),
      tools: [refund],
      middleware: [adapter.approvalGateMiddleware({ gate: gateServer, interruptOn: { refund: true } })],
    });
    const invoked = agent.invoke(
      { messages: [{ role: 'user', content: 'Refund the damaged order' }] },
      { configurable: { thread_id: 'thread_1' } },
    );
    return {
      functions: functions(adapter, ['approvalGateMiddleware', 'gateRequestIdFor', 'httpGate', 'clientGate']),
      requestId: adapter.gateRequestIdFor({ gate: gateServer }, { name: 'refund', id: 'call_1' }, 'thread_1'),
      pending: ['call_1'],
      url,
      result: await outcome(invoked, adapter),
    };
  },
};

/** Runs the scenario named on the command line and prints its report. */
module.exports = async function main(load) {
  const name = process.argv[2];
  const report = await scenarios[name](load);
  process.stdout.write(`${JSON.stringify(report)}\n`);
};
