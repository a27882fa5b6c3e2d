import {
  continueReason,
  DEFAULT_CONTINUATION_LIMITS,
  mustOffload,
  resolveLimits,
  type ExecutionProgress,
} from '../../src/common/continuation';
import type { Message } from '../../src/common/conversation';

const idle: ExecutionProgress = { turns: 3, historyBytes: 10_000, historyEvents: 100, suggested: false, pending: 0 };
const limits = resolveLimits({ turns_per_execution: 10, history_bytes: 1_000_000, history_events: 1_000 });

describe('continueReason', () => {
  it.each<[string, Partial<ExecutionProgress>, ReturnType<typeof continueReason>]>([
    ['runs on while under every limit', {}, null],
    ['continues at the turn limit', { turns: 10 }, 'turns'],
    ['continues when the history is large', { historyBytes: 1_000_000 }, 'history_bytes'],
    ['continues when the history is long', { historyEvents: 1_000 }, 'history_events'],
    ['continues when the server suggests it', { suggested: true }, 'suggested'],
    [
      'never before the execution ran a turn (it would loop)',
      { turns: 0, suggested: true, historyBytes: 5_000_000 },
      null,
    ],
    ['never while a gate or interaction is pending', { turns: 10, suggested: true, pending: 1 }, null],
  ])('%s', (_name, over, expected) => {
    expect(continueReason({ ...idle, ...over }, limits)).toBe(expected);
  });
});

describe('resolveLimits', () => {
  it('keeps the defaults for missing or unusable values', () => {
    expect(resolveLimits(undefined)).toEqual(DEFAULT_CONTINUATION_LIMITS);
    expect(resolveLimits({ turns_per_execution: 0, history_bytes: -1, history_events: 2.5 })).toEqual(
      DEFAULT_CONTINUATION_LIMITS,
    );
  });

  it('takes positive integers', () => {
    expect(resolveLimits({ turns_per_execution: 3, inline_conversation_bytes: 1 })).toEqual({
      ...DEFAULT_CONTINUATION_LIMITS,
      turns_per_execution: 3,
      inline_conversation_bytes: 1,
    });
  });
});

describe('mustOffload', () => {
  const messages: Message[] = [{ role: 'user', content: 'é'.repeat(100) }];
  const bytes = Buffer.byteLength(JSON.stringify(messages), 'utf8');

  it('counts UTF-8 bytes of the JSON, not characters', () => {
    expect(bytes).toBeGreaterThan(JSON.stringify(messages).length);
    expect(mustOffload(messages, { ...DEFAULT_CONTINUATION_LIMITS, inline_conversation_bytes: bytes })).toBe(false);
    expect(mustOffload(messages, { ...DEFAULT_CONTINUATION_LIMITS, inline_conversation_bytes: bytes - 1 })).toBe(true);
  });

  it('carries an ordinary conversation inline by default', () => {
    expect(mustOffload(messages, DEFAULT_CONTINUATION_LIMITS)).toBe(false);
  });
});
