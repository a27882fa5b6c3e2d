import http from 'node:http';
import type { AddressInfo } from 'node:net';
import conversation from '../fixtures/models/conversation-with-outcomes.json';
import expectedRequest from '../fixtures/models/anthropic-request-expected.json';
import response from '../fixtures/models/anthropic-response-text-tool-use.json';
import { Conversation, type Message } from '../../src/common/conversation';
import { createModel, ModelError, ModelSpec, type ToolSpec } from '../../src/worker/models';
import { fromAnthropicResponse, toAnthropicRequest } from '../../src/worker/models/anthropic';

const tools: ToolSpec[] = [
  {
    name: 'search_trip_policy',
    description: 'Search the travel policy.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
      additionalProperties: false,
    },
  },
];

describe('Anthropic mapping', () => {
  it('maps a conversation with results of several outcomes to the recorded request', () => {
    expect(toAnthropicRequest('claude-sonnet-4-20250514', Conversation.parse(conversation), tools)).toEqual(
      expectedRequest,
    );
  });

  it('puts a batch of tool results into one user message in call order, is_error for non-success', () => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'a', name: 'search_trip_policy', args: {} },
          { id: 'b', name: 'submit_trip_request', args: {} },
        ],
      },
      // Out of order on purpose: the mapping must still send call order.
      { role: 'tool', tool_call_id: 'b', outcome: 'expired', content: 'expired' },
      { role: 'tool', tool_call_id: 'a', outcome: 'success', content: 'found' },
    ];
    const body = toAnthropicRequest('m', messages, [], { max_tokens: 2048 });
    expect(body).toEqual({
      model: 'm',
      max_tokens: 2048,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'a', name: 'search_trip_policy', input: {} },
            { type: 'tool_use', id: 'b', name: 'submit_trip_request', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: 'found' },
            { type: 'tool_result', tool_use_id: 'b', content: 'expired', is_error: true },
          ],
        },
      ],
    });
  });

  it('maps a response with text and two tool_use blocks', () => {
    expect(fromAnthropicResponse(response)).toEqual({
      role: 'assistant',
      content: "I'll check the travel policy and draft the request for your Busan trip.",
      tool_calls: [
        {
          id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'search_trip_policy',
          args: { query: 'Busan per-day budget limit' },
        },
        {
          id: 'toolu_01B7w8h3XpQ2rT6yU9iK4mNb',
          name: 'draft_trip_request',
          args: { destination: 'Busan', days: 2, budget: 800000 },
        },
      ],
    });
  });

  it('keeps a non-object tool input as _raw and refuses a body without content', () => {
    const odd = {
      content: [
        { type: 'thinking', thinking: '...' },
        { type: 'tool_use', id: 't1', name: 'x', input: 'Busan' },
      ],
    };
    expect(fromAnthropicResponse(odd)).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 't1', name: 'x', args: { _raw: '"Busan"' } }],
    });
    expect(() => fromAnthropicResponse({ type: 'error' })).toThrow(ModelError);
  });
});

describe('Anthropic model over HTTP', () => {
  let server: http.Server;
  let baseUrl: string;
  let reply: { status: number; body: string };
  let seen: { url?: string; headers: http.IncomingHttpHeaders; body: unknown }[];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        seen.push({ url: req.url, headers: req.headers, body: JSON.parse(raw) });
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen = [];
  });

  const model = () =>
    createModel(ModelSpec.parse({ kind: 'anthropic', model: 'claude-sonnet-4-20250514' }), {
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: baseUrl,
    });
  const input = {
    messages: [
      { role: 'system' as const, content: 'rules' },
      { role: 'user' as const, content: 'Busan, 2 days' },
    ],
    tools,
  };

  it('posts to /v1/messages with the key, version header and default max_tokens', async () => {
    reply = { status: 200, body: JSON.stringify(response) };
    const message = await model().next(input);
    expect(message.tool_calls).toHaveLength(2);
    expect(seen[0]!.url).toBe('/v1/messages');
    expect(seen[0]!.headers['x-api-key']).toBe('sk-ant-test');
    expect(seen[0]!.headers['anthropic-version']).toBe('2023-06-01');
    expect(seen[0]!.body).toMatchObject({ model: 'claude-sonnet-4-20250514', max_tokens: 1024, system: 'rules' });
  });

  it('throws a non-retryable ModelError on HTTP 400', async () => {
    reply = {
      status: 400,
      body: '{"type":"error","error":{"type":"invalid_request_error","message":"tool_use ids were found without tool_result blocks"}}',
    };
    const err = (await model()
      .next(input)
      .catch((e: unknown) => e)) as ModelError;
    expect(err).toBeInstanceOf(ModelError);
    expect(err.name).toBe('ModelError');
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/HTTP 400: .*without tool_result blocks/);
  });

  it('throws a retryable ModelUnavailable on HTTP 500 (and 529 overloaded)', async () => {
    for (const status of [500, 529]) {
      reply = { status, body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' };
      const err = (await model()
        .next(input)
        .catch((e: unknown) => e)) as Error;
      expect(err).not.toBeInstanceOf(ModelError);
      expect(err.name).toBe('ModelUnavailable');
      expect(err.message).toMatch(new RegExp(`HTTP ${status}`));
    }
  });

  it('refuses to build a model without ANTHROPIC_API_KEY, naming the variable', () => {
    expect(() => createModel(ModelSpec.parse({ kind: 'anthropic', model: 'claude-sonnet-4-20250514' }), {})).toThrow(
      /ANTHROPIC_API_KEY is not set/,
    );
  });
});
