import { z } from 'zod';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../../common/conversation';
import { ModelError } from './errors';
import { joinUrl, postJson } from './http';
import type { Model, ModelInput, ToolSpec } from '../../common/model-spec';

/** Used when ANTHROPIC_BASE_URL is not set. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** The Messages API version this mapping is written against. */
export const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires `max_tokens`; this is used when the spec gives none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

type Block = Record<string, unknown>;
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/** The part of a Messages response we read: its content blocks. */
const AnthropicResponse = z.object({ content: z.array(z.looseObject({ type: z.string() })) });

/**
 * The Messages API request body for a conversation. System messages go to `system`;
 * assistant tool calls become `tool_use` blocks; each run of tool results becomes ONE
 * user message of `tool_result` blocks in call order, `is_error: true` for every outcome
 * but success. Adjacent messages of one role are merged, as the API wants alternation.
 */
export function toAnthropicRequest(
  model: string,
  messages: readonly Message[],
  tools: readonly ToolSpec[],
  options: { max_tokens?: number } = {},
): Record<string, unknown> {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  const out: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], content: Block[]): void => {
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };

  let callOrder = new Map<string, number>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'system') continue;
    if (m.role === 'user') {
      if (m.content !== '') push('user', [{ type: 'text', text: m.content }]);
    } else if (m.role === 'assistant') {
      callOrder = new Map((m.tool_calls ?? []).map((c, k) => [c.id, k]));
      const blocks: Block[] = m.content !== '' ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.tool_calls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args });
      // The API refuses an assistant turn with no blocks; keep the turn so roles alternate.
      push('assistant', blocks.length > 0 ? blocks : [{ type: 'text', text: '(no content)' }]);
    } else {
      const run: ToolMessage[] = [];
      for (; i < messages.length && messages[i]?.role === 'tool'; i++) run.push(messages[i] as ToolMessage);
      i--;
      const rank = (r: ToolMessage): number => callOrder.get(r.tool_call_id) ?? Number.MAX_SAFE_INTEGER;
      push('user', [...run].sort((a, b) => rank(a) - rank(b)).map(toolResultBlock));
    }
  }

  const body: Record<string, unknown> = { model, max_tokens: options.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS };
  if (system.length > 0) body.system = system.join('\n\n');
  body.messages = out;
  if (tools.length > 0)
    body.tools = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  return body;
}

function toolResultBlock(r: ToolMessage): Block {
  const block: Block = { type: 'tool_result', tool_use_id: r.tool_call_id, content: r.content };
  if (r.outcome !== 'success') block.is_error = true;
  return block;
}

/**
 * The assistant message in a Messages response: text blocks joined, `tool_use` blocks as
 * tool calls (an `input` that is not an object is kept as `{ _raw }` for `invalid_args`);
 * other blocks (thinking) are skipped. Throws `ModelError` for a body without content.
 */
export function fromAnthropicResponse(json: unknown): AssistantMessage {
  const parsed = AnthropicResponse.safeParse(json);
  if (!parsed.success) throw new ModelError(`unexpected Messages response: ${z.prettifyError(parsed.error)}`);
  const text: string[] = [];
  const calls: ToolCall[] = [];
  for (const block of parsed.data.content) {
    if (block.type === 'text' && typeof block.text === 'string') text.push(block.text);
    if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      const input = block.input;
      const args =
        input !== null && typeof input === 'object' && !Array.isArray(input)
          ? (input as Record<string, unknown>)
          : { _raw: JSON.stringify(input) ?? '' };
      calls.push({ id: block.id, name: block.name, args });
    }
  }
  const message: AssistantMessage = { role: 'assistant', content: text.join('') };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

/** An Anthropic Messages API model over `fetch`. */
export function createAnthropicModel(config: {
  model: string;
  apiKey: string;
  baseUrl: string;
  max_tokens?: number;
}): Model {
  const url = joinUrl(config.baseUrl, 'v1/messages');
  return {
    async next({ messages, tools }: ModelInput): Promise<AssistantMessage> {
      const body = toAnthropicRequest(config.model, messages, tools, { max_tokens: config.max_tokens });
      const json = await postJson(url, { 'x-api-key': config.apiKey, 'anthropic-version': ANTHROPIC_VERSION }, body);
      return fromAnthropicResponse(json);
    },
  };
}
