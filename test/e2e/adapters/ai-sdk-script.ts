import { convertArrayToReadableStream, type MockLanguageModelV3 } from 'ai/test';

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

type DoStream = NonNullable<NonNullable<ConstructorParameters<typeof MockLanguageModelV3>[0]>['doStream']>;
/** What a mock model's streamed turn returns (the object form of `doStream`). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type StreamResult = Exclude<DoStream, Function | unknown[]>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** The same turn as a provider streams it: its text in two deltas, each tool call whole, then the finish. */
export function streamed(turn: GenerateResult): StreamResult {
  const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  turn.content.forEach((c, i) => {
    if (c.type === 'text') {
      const id = `text-${i}`;
      const half = Math.ceil(c.text.length / 2);
      parts.push(
        { type: 'text-start', id },
        { type: 'text-delta', id, delta: c.text.slice(0, half) },
        { type: 'text-delta', id, delta: c.text.slice(half) },
        { type: 'text-end', id },
      );
    } else if (c.type === 'tool-call') parts.push(c);
  });
  parts.push({ type: 'finish', finishReason: turn.finishReason, usage: turn.usage });
  return { stream: convertArrayToReadableStream(parts) };
}
