import http from 'node:http';
import type { AddressInfo } from 'node:net';
import conversation from '../fixtures/models/conversation-with-outcomes.json';
import expectedRequest from '../fixtures/models/openai-request-expected.json';
import response from '../fixtures/models/openai-response-parallel-tool-calls.json';
import { Conversation } from '../../src/common/conversation';
import { z } from 'zod';
import {
  createModel,
  ModelError,
  ModelSpec,
  ModelUnavailable,
  toolSpecFromZod,
  type ToolSpec,
} from '../../src/worker/models';
import { fromOpenAIResponse, toOpenAIRequest } from '../../src/worker/models/openai';

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

describe('OpenAI mapping', () => {
  it('maps a conversation with results of several outcomes to the recorded request', () => {
    expect(toOpenAIRequest('gpt-4o', Conversation.parse(conversation), tools)).toEqual(expectedRequest);
  });

  it('builds a tool spec from a zod args schema as plain JSON Schema', () => {
    const spec = toolSpecFromZod(
      'draft_trip_request',
      'Create a draft.',
      z.object({ days: z.int().min(1), draft_id: z.string().optional() }),
    );
    expect(spec.parameters).not.toHaveProperty('$schema');
    expect(spec.parameters).toMatchObject({
      type: 'object',
      required: ['days'],
      properties: { days: { type: 'integer', minimum: 1 } },
    });
  });

  it('leaves out an empty tools list and passes max_tokens', () => {
    const body = toOpenAIRequest('gpt-4o', [{ role: 'user', content: 'hi' }], [], { max_tokens: 256 });
    expect(body).toEqual({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], max_tokens: 256 });
  });

  it('maps a response with two parallel tool calls, parsing their JSON arguments', () => {
    expect(fromOpenAIResponse(response)).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: 'call_8qty38ZkXyKQd4DcdLmS2XjM',
          name: 'search_trip_policy',
          args: { query: 'Busan per-day budget limit' },
        },
        {
          id: 'call_Hk3ZQ7yNfA0mPpL1c9RtWv2e',
          name: 'draft_trip_request',
          args: { destination: 'Busan', days: 2, budget: 800000 },
        },
      ],
    });
  });

  it('keeps malformed or non-object arguments as _raw instead of crashing', () => {
    const broken = structuredClone(response);
    broken.choices[0]!.message.tool_calls[0]!.function.arguments = '{"query": "Busan';
    broken.choices[0]!.message.tool_calls[1]!.function.arguments = '[1,2]';
    const calls = fromOpenAIResponse(broken).tool_calls ?? [];
    expect(calls.map((c) => c.args)).toEqual([{ _raw: '{"query": "Busan' }, { _raw: '[1,2]' }]);
  });

  it('maps a plain text answer and refuses a response without choices', () => {
    expect(fromOpenAIResponse({ choices: [{ message: { role: 'assistant', content: 'Done.' } }] })).toEqual({
      role: 'assistant',
      content: 'Done.',
    });
    expect(() => fromOpenAIResponse({ error: { message: 'nope' } })).toThrow(ModelError);
  });
});

describe('OpenAI model over HTTP', () => {
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
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen = [];
  });

  const model = () =>
    createModel(ModelSpec.parse({ kind: 'openai', model: 'gpt-4o' }), {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: baseUrl,
    });
  const input = { messages: [{ role: 'user' as const, content: 'Busan, 2 days' }], tools };

  it('posts the request with the bearer key and returns the assistant message', async () => {
    reply = { status: 200, body: JSON.stringify(response) };
    const message = await model().next(input);
    expect(message.tool_calls).toHaveLength(2);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('/v1/chat/completions');
    expect(seen[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(seen[0]!.body).toEqual(toOpenAIRequest('gpt-4o', input.messages, tools));
  });

  it('throws a non-retryable ModelError with status and body excerpt on HTTP 400', async () => {
    reply = {
      status: 400,
      body: JSON.stringify({
        error: { message: "Invalid parameter: 'tool_call_id' not found", type: 'invalid_request_error' },
      }),
    };
    const err = (await model()
      .next(input)
      .catch((e: unknown) => e)) as ModelError;
    expect(err.name).toBe('ModelError');
    expect(err.status).toBe(400);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/HTTP 400: .*tool_call_id' not found/);
    expect(err.message).not.toMatch(/sk-test/);
  });

  it.each([500, 429])('throws a retryable ModelUnavailable on HTTP %i', async (status) => {
    reply = { status, body: '{"error":{"message":"try again"}}' };
    const err = (await model()
      .next(input)
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ModelError);
    expect(err).toBeInstanceOf(ModelUnavailable);
    expect(err.name).toBe('ModelUnavailable'); // the failure type a run names when the retries run out
    expect(err.message).toMatch(new RegExp(`HTTP ${status}`));
  });

  it('refuses to build a model without OPENAI_API_KEY, naming the variable', () => {
    expect(() => createModel(ModelSpec.parse({ kind: 'openai', model: 'gpt-4o' }), {})).toThrow(
      /OPENAI_API_KEY is not set/,
    );
  });

  it('refuses a base_url in the run request, so a caller cannot redirect the API key', () => {
    expect(
      ModelSpec.safeParse({ kind: 'openai', model: 'gpt-4o', base_url: 'https://attacker.example/v1' }).success,
    ).toBe(false);
  });

  it('uses OPENAI_BASE_URL with a trailing slash', async () => {
    reply = { status: 200, body: JSON.stringify(response) };
    await createModel(ModelSpec.parse({ kind: 'openai', model: 'gpt-4o' }), {
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: `${baseUrl}/`,
    }).next(input);
    expect(seen[0]!.url).toBe('/v1/chat/completions');
  });
});
