import fixture from '../fixtures/models/conversation-with-outcomes.json';
import {
  Conversation,
  Message,
  rewriteToolCallArgs,
  ToolOutcome,
  validateConversation,
  checkReply,
} from '../../src/common/conversation';

const sys: Message = { role: 'system', content: 'be careful' };
const user: Message = { role: 'user', content: 'submit my Busan trip' };
const calls = (...ids: string[]): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: ids.map((id) => ({ id, name: 'search_trip_policy', args: { query: id } })),
});
const result = (id: string): Message => ({
  role: 'tool',
  tool_call_id: id,
  outcome: 'success',
  content: `result of ${id}`,
});
const final: Message = { role: 'assistant', content: 'done' };

describe('validateConversation', () => {
  const cases: { name: string; messages: Message[]; problems: RegExp[] }[] = [
    {
      name: 'accepts a good batch answered in call order',
      messages: [sys, user, calls('c1', 'c2'), result('c1'), result('c2'), final],
      problems: [],
    },
    { name: 'accepts a conversation without tool calls', messages: [sys, user, final], problems: [] },
    {
      name: 'reports a call without a result',
      messages: [user, calls('c1', 'c2'), result('c1'), final],
      problems: [/tool call "c2" \(message 1\) has no result/],
    },
    {
      name: 'reports a second result for one call',
      messages: [user, calls('c1'), result('c1'), result('c1')],
      problems: [/message 3: second tool result for "c1" \(first in message 2\)/],
    },
    {
      name: 'reports a result without a call',
      messages: [user, calls('c1'), result('c1'), result('ghost')],
      problems: [/message 3: tool result for "ghost", which no assistant message called/],
    },
    {
      name: 'reports results out of call order',
      messages: [user, calls('c1', 'c2'), result('c2'), result('c1')],
      problems: [/message 3: tool result for "c1" comes after "c2", but was called before it/],
    },
    {
      name: 'reports a result that comes before its call',
      messages: [user, result('c1'), calls('c1')],
      problems: [
        /message 1: tool result for "c1" comes before its call \(message 2\)/,
        /tool call "c1" \(message 2\) has no result/,
      ],
    },
    {
      name: 'reports a result after the next assistant message',
      messages: [user, calls('c1', 'c2'), result('c1'), final, result('c2')],
      problems: [/message 4: tool result for "c2" is not directly after its call's message 1/],
    },
    {
      name: 'reports a user message between calls and their results',
      messages: [user, calls('c1'), user, result('c1')],
      problems: [/message 3: tool result for "c1" is not directly after its call's message 1/],
    },
    {
      name: 'reports a duplicate call id across assistant messages',
      messages: [user, calls('c1'), result('c1'), calls('c1'), final],
      problems: [/duplicate tool call id "c1" in message 3 \(first used in message 1\)/],
    },
    {
      name: 'reports a pending batch (no results yet)',
      messages: [user, calls('c1')],
      problems: [/tool call "c1" \(message 1\) has no result/],
    },
  ];

  it.each(cases)('$name', ({ messages, problems }) => {
    const found = validateConversation(messages);
    expect(found).toHaveLength(problems.length);
    problems.forEach((p, i) => expect(found[i]).toMatch(p));
  });

  it('accepts the recorded conversation with results of every kind', () => {
    expect(validateConversation(Conversation.parse(fixture))).toEqual([]);
  });
});

describe('Message schema', () => {
  it('parses the snake_case wire shape and refuses an unknown outcome', () => {
    expect(Conversation.safeParse(fixture).success).toBe(true);
    const bad = { role: 'tool', tool_call_id: 'c1', outcome: 'rejected', content: 'x' };
    expect(Message.safeParse(bad).success).toBe(false);
  });

  it('refuses a tool message without tool_call_id', () => {
    expect(Message.safeParse({ role: 'tool', outcome: 'success', content: 'x' }).success).toBe(false);
  });

  it('lists exactly the nine result kinds of docs/agent-runs.md', () => {
    expect(Object.values(ToolOutcome).sort()).toEqual(
      [
        'blocked',
        'cancelled',
        'denied',
        'expired',
        'failure',
        'invalid_args',
        'invalidated',
        'success',
        'unknown_tool',
      ].sort(),
    );
  });
});

describe('rewriteToolCallArgs', () => {
  it('records the executed args in the assistant message without touching the input', () => {
    const before: Message[] = [user, calls('c1', 'c2'), result('c1')];
    const after = rewriteToolCallArgs(before, 'c2', { budget: 500000 });
    expect(after).not.toBe(before);
    expect(after[1]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'c1', name: 'search_trip_policy', args: { query: 'c1' } },
        { id: 'c2', name: 'search_trip_policy', args: { budget: 500000 } },
      ],
    });
    expect(before[1]).toEqual(calls('c1', 'c2'));
    expect(after[0]).toBe(before[0]);
  });

  it('throws when no assistant message has the call', () => {
    expect(() => rewriteToolCallArgs([user, calls('c1')], 'c9', {})).toThrow(/no assistant message has tool call "c9"/);
  });
});

describe('checkReply', () => {
  const call = (id: string) => ({ id, name: 'draft_trip_request', args: {} });
  const history = [
    { role: 'user' as const, content: 'go' },
    { role: 'assistant' as const, content: '', tool_calls: [call('c1')] },
    { role: 'tool' as const, tool_call_id: 'c1', outcome: 'success' as const, content: 'ok' },
  ];

  it('accepts fresh, well-formed ids', () => {
    expect(
      checkReply(history, { role: 'assistant', content: '', tool_calls: [call('c2'), call('call_abc.1:x')] }),
    ).toEqual([]);
  });

  it.each([
    ['a repeated id within the reply', [call('c2'), call('c2')], /appears twice/],
    ['an id used earlier in the run', [call('c1')], /already used/],
    ['an id with spaces', [call('call 3')], /not 1-128/],
    ['an id too long', [call('x'.repeat(129))], /not 1-128/],
  ])('refuses %s before anything runs', (_title, calls, pattern) => {
    expect(checkReply(history, { role: 'assistant', content: '', tool_calls: calls }).join('\n')).toMatch(pattern);
  });
});
