import fc from 'fast-check';
import type { Message } from '../../src/common/conversation';
import {
  batchesOf,
  chainOver,
  chainStep,
  ConversationLog,
  EMPTY_CHAIN,
  logProblem,
  messageBytes,
  messagesBytes,
  viewWindow,
} from '../../src/common/conversation-log';

const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string, callId?: string): Message => ({
  role: 'assistant',
  content,
  ...(callId ? { tool_calls: [{ id: callId, name: 'submit', args: { budget: 1 } }] } : {}),
});
const conversation = (n: number, size = 10): Message[] =>
  Array.from({ length: n }, (_, i) => (i % 2 ? assistant(`a${i}`.padEnd(size, '.')) : user(`u${i}`.padEnd(size, '.'))));

describe('the conversation hash chain', () => {
  it('names a conversation: any change to a message, its order or its length changes the head', () => {
    const c = conversation(4);
    const head = chainOver(c);
    expect(chainOver(conversation(4))).toBe(head);
    expect(chainOver([c[1]!, c[0]!, c[2]!, c[3]!])).not.toBe(head);
    expect(chainOver(c.slice(0, 3))).not.toBe(head);
    expect(chainOver([...c.slice(0, 3), user('u3..........')])).not.toBe(head);
    expect(chainOver([])).toBe(EMPTY_CHAIN);
  });

  it('continues from a prefix: the chain over a + b is the chain over b from the chain over a', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 8 }), fc.array(fc.string(), { maxLength: 8 }), (a, b) => {
        const ma = a.map(user);
        const mb = b.map(user);
        expect(chainOver(mb, chainOver(ma))).toBe(chainOver([...ma, ...mb]));
      }),
    );
  });

  it('does not depend on key order within a message (canonical JSON)', () => {
    expect(chainStep(EMPTY_CHAIN, { role: 'user', content: 'x' })).toBe(
      chainStep(EMPTY_CHAIN, { content: 'x', role: 'user' } as Message),
    );
  });
});

describe('ConversationLog', () => {
  it('names the stored prefix by count and chain, and only a prefix it holds', () => {
    const c = conversation(5);
    const log = new ConversationLog('run_1');
    expect(log.ref()).toEqual({ run_id: 'run_1', count: 0, head: EMPTY_CHAIN });
    log.markStored(c, 0, 3);
    expect(log.storedCount).toBe(3);
    expect(log.ref()).toEqual({ run_id: 'run_1', count: 3, head: chainOver(c.slice(0, 3)) });
    expect(log.ref(1)).toEqual({ run_id: 'run_1', count: 1, head: chainOver(c.slice(0, 1)) });
    expect(() => log.ref(4)).toThrow(RangeError);
    log.markStored(c, 3);
    expect(log.ref()).toEqual({ run_id: 'run_1', count: 5, head: chainOver(c) });
  });

  it('refuses a gap: messages after the stored prefix cannot be marked before the ones between', () => {
    const log = new ConversationLog('run_1');
    expect(() => log.markStored(conversation(4), 2)).toThrow(RangeError);
  });

  it('sees a rewritten message by identity, so it and everything after it are written again', () => {
    const c = conversation(4);
    const log = new ConversationLog('run_1');
    log.markStored(c, 0);
    expect(log.commonPrefix(c)).toBe(4);
    expect(log.commonPrefix([...c, user('new')])).toBe(4);
    const rewritten = [c[0]!, { ...c[1]! }, c[2]!, c[3]!]; // an equal copy is still a different object: written again
    expect(log.commonPrefix(rewritten)).toBe(1);
    log.markStored(rewritten, 1);
    expect(log.commonPrefix(rewritten)).toBe(4);
    expect(log.commonPrefix(c)).toBe(1);
    expect(log.ref().head).toBe(chainOver(rewritten));
  });
});

describe('logProblem', () => {
  const c = conversation(3);
  const ref = { run_id: 'run_1', count: 3, head: chainOver(c) };
  it('accepts the very messages the ref names', () => expect(logProblem(ref, c)).toBeNull());
  it('refuses missing messages', () => expect(logProblem(ref, c.slice(0, 2))).toMatch(/2 of the 3 messages/));
  it('refuses a changed message', () =>
    expect(logProblem(ref, [c[0]!, user('other'), c[2]!])).toMatch(/hash chain mismatch/));
});

describe('batchesOf', () => {
  it('keeps every message in order, each batch within the budget unless one message alone is larger', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 600 }),
        (sizes, budget) => {
          const messages = sizes.map((n, i) => user(`${i}:`.padEnd(n, 'x')));
          const batches = batchesOf(messages, budget);
          expect(batches.flat()).toEqual(messages);
          for (const b of batches) {
            expect(b.length).toBeGreaterThan(0);
            if (b.length > 1) expect(messagesBytes(b)).toBeLessThanOrEqual(budget);
          }
        },
      ),
    );
  });
});

describe('viewWindow', () => {
  it('shows everything when it fits', () => {
    const c = conversation(6);
    expect(viewWindow(c, 6, 10_000)).toEqual({ omitted: 0, shown: c });
  });

  it('shows the newest messages within the budget and leaves out the oldest stored ones', () => {
    const c = conversation(10, 100);
    const per = messageBytes(c[0]!);
    const { omitted, shown } = viewWindow(c, 10, per * 3 + 10);
    expect(omitted).toBe(7);
    expect(shown).toEqual(c.slice(7));
  });

  it('never leaves out a message the store does not hold yet, whatever the budget', () => {
    const c = conversation(10, 100);
    const { omitted, shown } = viewWindow(c, 4, 1);
    expect(omitted).toBe(4);
    expect(shown).toEqual(c.slice(4));
    expect(viewWindow(c, 0, 1).omitted).toBe(0);
  });

  it('tells the same conversation as the whole: the omitted prefix and the shown rest make it up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 5000 }),
        (n, s, budget) => {
          const c = conversation(n, 50);
          const stored = Math.min(s, n);
          const { omitted, shown } = viewWindow(c, stored, budget);
          expect(omitted).toBeLessThanOrEqual(stored);
          expect([...c.slice(0, omitted), ...shown]).toEqual(c);
        },
      ),
    );
  });
});

describe('the tool call args of a rewritten message', () => {
  it('change the chain (a modified call is a different conversation)', () => {
    const a = assistant('', 'c1');
    const b: Message = {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', name: 'submit', args: { budget: 2 } }],
    };
    expect(chainStep(EMPTY_CHAIN, a)).not.toBe(chainStep(EMPTY_CHAIN, b));
  });
});
