import { z } from 'zod';
import type { AssistantMessage, Message } from './conversation';

/** Tool call ids of a script: also used inside `{{value:<id>.<key>}}` templates, so no dots. */
const ScriptedCallId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"');

/** One scripted model turn: the i-th model call returns turn i. */
export const ScriptedTurn = z
  .object({
    /** Text; may hold `{{result:<id>}}`, `{{value:<id>.<key>}}`, `{{outcome:<id>}}` templates. */
    content: z.string().max(20_000).optional(),
    /** Tool calls, ids used as given. */
    tool_calls: z
      .array(
        z.object({
          /** Unique across the whole script (a run's call ids must be unique). */
          id: ScriptedCallId,
          /** Tool name. */
          name: z.string().min(1).max(200),
          /** Proposed args. */
          args: z.record(z.string(), z.unknown()).default({}),
        }),
      )
      .optional(),
  })
  .refine((t) => (t.content ?? '') !== '' || (t.tool_calls?.length ?? 0) > 0, 'a turn needs content or tool_calls');
export type ScriptedTurn = z.infer<typeof ScriptedTurn>;

/** A deterministic model for tests and the demo. */
export const ScriptedModelSpec = z
  .object({
    kind: z.literal('scripted'),
    /** Turn i answers the i-th model call; running out of turns ends the run with an error. */
    turns: z.array(ScriptedTurn).min(1).max(200),
  })
  .superRefine((spec, ctx) => {
    const seen = new Set<string>();
    spec.turns.forEach((turn, t) =>
      turn.tool_calls?.forEach((call, c) => {
        if (seen.has(call.id))
          ctx.addIssue({
            code: 'custom',
            path: ['turns', t, 'tool_calls', c, 'id'],
            message: `duplicate tool call id "${call.id}"`,
          });
        seen.add(call.id);
      }),
    );
  });
export type ScriptedModelSpec = z.infer<typeof ScriptedModelSpec>;

/**
 * A real provider, used when its API key env var is set. There is deliberately no
 * base URL here: a run request must not be able to send the worker's API key to a
 * server of its choosing. The base URL comes from OPENAI_BASE_URL / ANTHROPIC_BASE_URL.
 */
export const ProviderModelSpec = z.strictObject({
  /** `openai` covers any OpenAI-compatible Chat Completions server. */
  kind: z.enum(['openai', 'anthropic']),
  /** The provider's model name, e.g. `gpt-4o` or `claude-sonnet-4-20250514`. */
  model: z.string().min(1).max(200),
  /** Output token limit; Anthropic requires one (default 1024). */
  max_tokens: z.int().min(1).max(200_000).optional(),
});
export type ProviderModelSpec = z.infer<typeof ProviderModelSpec>;

/** The `model` field of `POST /v1/runs`. */
export const ModelSpec = z.discriminatedUnion('kind', [ScriptedModelSpec, ProviderModelSpec]);
export type ModelSpec = z.infer<typeof ModelSpec>;

/** A tool as a model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the args (an object schema). */
  parameters: Record<string, unknown>;
}

/** One model call's input: the checked conversation and the tools permitted now. */
export interface ModelInput {
  messages: readonly Message[];
  tools: readonly ToolSpec[];
}

/**
 * The pluggable model: one call, conversation in, next assistant message out. Throws
 * `ModelError` (or `ModelExhausted`) when retrying cannot help, `ModelUnavailable` (or any other error) when it can.
 */
export interface Model {
  next(input: ModelInput): Promise<AssistantMessage>;
}

/** A ToolSpec from a zod args schema, as JSON Schema without the `$schema` key providers do not need. */
export function toolSpecFromZod(name: string, description: string, args: z.ZodType): ToolSpec {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(args, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return { name, description, parameters };
}
