import conv from './test/fixtures/models/conversation-with-outcomes.json';
import { Conversation, validateConversation } from './src/core/conversation';
import { toOpenAIRequest } from './src/models/openai';
import { toAnthropicRequest } from './src/models/anthropic';
const msgs = Conversation.parse(conv);
console.error(validateConversation(msgs));
const tools = [{ name: 'search_trip_policy', description: 'Search the travel policy.', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false } }];
const which = process.argv[2];
console.log(JSON.stringify(which === 'openai' ? toOpenAIRequest('gpt-4o', msgs, tools) : toAnthropicRequest('claude-sonnet-4-20250514', msgs, tools), null, 2));
