import { z } from 'zod';
import type { AssistantMessage, Message, ToolCall } from '../../common/conversation';
import { ModelError } from './errors';
import { joinUrl, postJson } from './http';
import type { Model, ModelInput, ToolSpec } from '../../common/model-spec';

/** Used when OPENAI_BASE_URL is not set. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The part of a Chat Completions response we read; other fields are ignored. */
const OpenAIResponse = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().min(1),
                function: z.object({ name: z.string(), arguments: z.string().nullish() }),
              }),
            )
            .nullish(),
        }),
      }),
    )
    .min(1),
});

/** Options of one provider call. */
export interface OpenAIOptions {
  max_tokens?: number;
}

/**
 * The Chat Completions request body for a conversation: tool results become
 * `role: "tool"` messages with `tool_call_id`, args become JSON-string `arguments`.
 */
export function toOpenAIRequest(
  model: string,
  messages: readonly Message[],
  tools: readonly ToolSpec[],
  options: OpenAIOptions = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: messages.map(toOpenAIMessage) };
  // An empty `tools` array is refused by the API, so leave the key out.
  if (tools.length > 0) {
    body.tools = tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  if (options.max_tokens !== undefined) body.max_tokens = options.max_tokens;
  return body;
}

function toOpenAIMessage(m: Message): Record<string, unknown> {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: m.content };
    case 'tool':
      return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
    case 'assistant': {
      if (!m.tool_calls?.length) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        content: m.content === '' ? null : m.content,
        tool_calls: m.tool_calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        })),
      };
    }
  }
}

/**
 * The assistant message in a Chat Completions response. Malformed JSON `arguments`
 * (or JSON that is not an object) become `{ _raw: "<text>" }`, so the loop answers the
 * call with `invalid_args` instead of the activity crashing. Throws `ModelError` when
 * the response has no choice to read.
 */
export function fromOpenAIResponse(json: unknown): AssistantMessage {
  const parsed = OpenAIResponse.safeParse(json);
  if (!parsed.success) throw new ModelError(`unexpected Chat Completions response: ${z.prettifyError(parsed.error)}`);
  const { content, refusal, tool_calls } = parsed.data.choices[0]!.message;
  const message: AssistantMessage = { role: 'assistant', content: content ?? refusal ?? '' };
  if (tool_calls?.length) {
    message.tool_calls = tool_calls.map((c): ToolCall => ({
      id: c.id,
      name: c.function.name,
      args: parseArguments(c.function.arguments),
    }));
  }
  return message;
}

/** JSON-string tool arguments to an args object; never throws. */
export function parseArguments(text: string | null | undefined): Record<string, unknown> {
  if (text == null || text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through: keep the text so the result can show the model what it sent
  }
  return { _raw: text };
}

/** An OpenAI-compatible Chat Completions model over `fetch`. */
export function createOpenAIModel(config: {
  model: string;
  apiKey: string;
  baseUrl: string;
  max_tokens?: number;
}): Model {
  const url = joinUrl(config.baseUrl, 'chat/completions');
  return {
    async next({ messages, tools }: ModelInput): Promise<AssistantMessage> {
      const body = toOpenAIRequest(config.model, messages, tools, { max_tokens: config.max_tokens });
      const json = await postJson(url, { authorization: `Bearer ${config.apiKey}` }, body);
      return fromOpenAIResponse(json);
    },
  };
}
