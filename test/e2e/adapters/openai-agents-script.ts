import { Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents-core';

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

  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
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
