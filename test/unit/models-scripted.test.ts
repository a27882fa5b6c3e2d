import type { Message } from '../../src/common/conversation';
import { toolResultMessage } from '../../src/common/tool-result';
import { createModel, ModelExhausted, ModelSpec } from '../../src/worker/models';
import { renderTemplate } from '../../src/worker/models/scripted';

const spec = ModelSpec.parse({
  kind: 'scripted',
  turns: [
    { tool_calls: [{ id: 'c1', name: 'draft_trip_request', args: { destination: 'Busan', days: 2, budget: 800000 } }] },
    { tool_calls: [{ id: 'c2', name: 'submit_trip_request' }] },
    { content: 'Submitted with a budget of {{value:c2.budget}} KRW ({{outcome:c2}}).' },
  ],
});

const goal: Message[] = [{ role: 'user', content: 'Busan, 2 days, 800,000 KRW' }];

describe('scripted model', () => {
  it('answers the i-th call with turn i, counting assistant messages already in the conversation', async () => {
    const model = createModel(spec);
    const first = await model.next({ messages: goal, tools: [] });
    expect(first).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', name: 'draft_trip_request', args: { destination: 'Busan', days: 2, budget: 800000 } }],
    });
    // The same conversation asked again (a retried activity) gets the same turn.
    expect(await model.next({ messages: goal, tools: [] })).toEqual(first);
    const second = await model.next({
      messages: [...goal, first, toolResultMessage('c1', { outcome: 'success', content: 'ok' })],
      tools: [],
    });
    expect(second.tool_calls).toEqual([{ id: 'c2', name: 'submit_trip_request', args: {} }]);
  });

  it('reports what actually ran through templates', async () => {
    const messages: Message[] = [
      ...goal,
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'draft_trip_request', args: {} }] },
      toolResultMessage('c1', { outcome: 'success', content: 'draft saved' }),
      { role: 'assistant', content: '', tool_calls: [{ id: 'c2', name: 'submit_trip_request', args: {} }] },
      toolResultMessage('c2', { outcome: 'success', content: 'submitted', executed_values: { budget: 500000 } }),
    ];
    const last = await createModel(spec).next({ messages, tools: [] });
    expect(last).toEqual({ role: 'assistant', content: 'Submitted with a budget of 500,000 KRW (success).' });
  });

  it('throws ModelExhausted when the script has no turn left', async () => {
    const model = createModel(ModelSpec.parse({ kind: 'scripted', turns: [{ content: 'only one' }] }));
    const messages: Message[] = [
      ...goal,
      { role: 'assistant', content: 'only one' },
      { role: 'user', content: 'and?' },
    ];
    const err = await model.next({ messages, tools: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelExhausted);
    expect((err as Error).name).toBe('ModelExhausted');
    expect((err as Error).message).toMatch(/has 1 turn\(s\) and was asked for turn 2/);
  });

  it('refuses a script that reuses a tool call id', () => {
    const parsed = ModelSpec.safeParse({
      kind: 'scripted',
      turns: [{ tool_calls: [{ id: 'c1', name: 'a' }] }, { tool_calls: [{ id: 'c1', name: 'b' }] }],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['turns', 1, 'tool_calls', 0, 'id'],
      message: 'duplicate tool call id "c1"',
    });
  });

  it('refuses an empty turn and a call id that templates cannot name', () => {
    expect(ModelSpec.safeParse({ kind: 'scripted', turns: [{}] }).success).toBe(false);
    expect(ModelSpec.safeParse({ kind: 'scripted', turns: [{ tool_calls: [{ id: 'c.1', name: 'a' }] }] }).success).toBe(
      false,
    );
  });
});

describe('renderTemplate', () => {
  const messages: Message[] = [
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'x', args: {} }] },
    toolResultMessage('c1', { outcome: 'denied', reason: 'Over budget.' }),
  ];

  it('renders result content, values and outcomes', () => {
    expect(renderTemplate('{{outcome:c1}}: {{value:c1.reason}} / {{result:c1}}', messages)).toBe(
      'denied: Over budget. / A reviewer rejected this call. Reason: Over budget. Do not run it again; explain and suggest alternatives.',
    );
  });

  it('renders unknown references visibly instead of guessing', () => {
    expect(renderTemplate('{{result:c9}} {{value:c1.budget}} {{value:c1}}', messages)).toBe(
      '<unknown: result:c9> <unknown: value:c1.budget> <unknown: value:c1>',
    );
  });

  it('formats numbers with thousands separators', () => {
    const m: Message[] = [
      toolResultMessage('c2', {
        outcome: 'success',
        content: 'ok',
        values: { a: 1234567, b: -1500.25, c: 42, d: 'x' },
      }),
    ];
    expect(renderTemplate('{{value:c2.a}} {{value:c2.b}} {{value:c2.c}} {{value:c2.d}}', m)).toBe(
      '1,234,567 -1,500.25 42 x',
    );
  });
});
