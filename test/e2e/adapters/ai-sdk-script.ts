import type { MockLanguageModelV3 } from 'ai/test';

type DoGenerate = NonNullable<NonNullable<ConstructorParameters<typeof MockLanguageModelV3>[0]>['doGenerate']>;
/** What a mock model's turn returns (the object form of `doGenerate`). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type GenerateResult = Exclude<DoGenerate, Function | unknown[]>;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** One model turn that calls tools: `[callId, toolName, input]` each. */
export function callTools(...calls: [string, string, unknown][]): GenerateResult {
  return {
    content: calls.map(([toolCallId, toolName, input]) => ({
      type: 'tool-call' as const,
      toolCallId,
      toolName,
      input: JSON.stringify(input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** One model turn that answers in text. */
export function say(text: string): GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
}
