import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

/**
 * A scripted tool-calling chat model for LangChain agents: each turn comes from `next`,
 * given the conversation (so a fresh process with the same history gets the same turn).
 * `bindTools` keeps the script, as LangChain's own test models do. No network.
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly calls: BaseMessage[][] = [];
  constructor(private readonly next: (messages: BaseMessage[]) => AIMessage) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push(messages);
    const message = this.next(messages);
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }

  override bindTools(): this {
    return this;
  }
}

/** A model turn that calls tools: `[callId, toolName, args]` each. */
export function callTools(...calls: [string, string, Record<string, unknown>][]): AIMessage {
  return new AIMessage({
    content: '',
    tool_calls: calls.map(([id, name, args]) => ({ id, name, args, type: 'tool_call' })),
  });
}

/** True once the conversation carries a tool result: the scripted agent then answers in text. */
export function hasToolResults(messages: BaseMessage[]): boolean {
  return messages.some((m) => ToolMessage.isInstance(m));
}
