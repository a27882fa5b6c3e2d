import { Usage, type Model, type ModelRequest, type ModelResponse, type StreamEvent } from '@openai/agents-core';

/**
 * A scripted `Model` for OpenAI Agents: each turn's output comes from `next`, given the
 * request (so a fresh process with the same history gets the same turn). No network.
 */
export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly next: (request: ModelRequest) => ModelResponse['output']) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    return { usage: new Usage(), output: this.next(request), responseId: `resp_${this.requests.length}` };
  }

  /** The same turn as a provider streams it: each message's text as a delta, then the whole response. */
  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const { output, responseId } = await this.getResponse(request);
    yield { type: 'response_started' };
    for (const item of output)
      if (item.type === 'message' && item.role === 'assistant')
        for (const c of item.content) if (c.type === 'output_text') yield { type: 'output_text_delta', delta: c.text };
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    // The scripted turns are the items a streamed response carries: messages and function calls.
    const items = output as Extract<StreamEvent, { type: 'response_done' }>['response']['output'];
    yield { type: 'response_done', response: { id: responseId ?? 'resp', usage, output: items } };
  }
}

/** A model output item that calls a function tool. */
export function functionCall(callId: string, name: string, args: unknown): ModelResponse['output'][number] {
  return {
    type: 'function_call',
    id: `fc_${callId}`,
    callId,
    name,
    arguments: JSON.stringify(args),
    status: 'completed',
  };
}

/** A model output item with the final text. */
export function message(text: string): ModelResponse['output'][number] {
  return {
    type: 'message',
    id: `msg_${text.length}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text }],
  };
}

/** True once the request carries a tool result: the scripted agent then answers in text. */
export function hasToolResults(request: ModelRequest): boolean {
  return Array.isArray(request.input) && request.input.some((i) => i.type === 'function_call_result');
}
