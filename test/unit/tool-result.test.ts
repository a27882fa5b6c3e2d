import fixture from '../fixtures/models/conversation-with-outcomes.json';
import { z } from 'zod';
import { toolResultMessage } from '../../src/common/tool-result';
import { Conversation, type ToolMessage } from '../../src/common/conversation';

describe('toolResultMessage', () => {
  it('passes a plain success through as the tool content', () => {
    expect(
      toolResultMessage('c1', { outcome: 'success', content: 'Draft d_1 saved.', values: { draft_id: 'd_1' } }),
    ).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      outcome: 'success',
      content: 'Draft d_1 saved.',
      values: { draft_id: 'd_1' },
    });
  });

  it('tells the model to report the executed values after a reviewer modification', () => {
    const m = toolResultMessage('c5', {
      outcome: 'success',
      content: 'Submitted s_1: Busan, 2 days, 500,000 KRW.',
      executed_values: { destination: 'Busan', days: 2, budget: 500000 },
      values: { submission_id: 's_1' },
    });
    expect(m.content).toBe(
      'Submitted s_1: Busan, 2 days, 500,000 KRW. (A reviewer modified the arguments. The executed values are: ' +
        'destination=Busan, days=2, budget=500000. Report these values, not your original proposal.)',
    );
    expect(m.values).toEqual({ destination: 'Busan', days: 2, budget: 500000, submission_id: 's_1' });
  });

  it('tells the model not to run a denied call again and gives the reason', () => {
    const m = toolResultMessage('c6', {
      outcome: 'denied',
      reason: 'The quarterly budget is used up.',
      reviewer_id: 'kim',
    });
    expect(m.outcome).toBe('denied');
    expect(m.content).toBe(
      'A reviewer rejected this call. Reason: The quarterly budget is used up. Do not run it again; explain and suggest alternatives.',
    );
    expect(m.values).toEqual({ reason: 'The quarterly budget is used up.', reviewer_id: 'kim' });
  });

  it('says an expired request failed closed and nothing ran', () => {
    const { content } = toolResultMessage('c7', { outcome: 'expired', expires_at: '2025-07-02T09:00:00.000Z' });
    expect(content).toMatch(
      /^No reviewer decided before the deadline \(2025-07-02T09:00:00.000Z\); the request expired and nothing ran \(fails closed\)\./,
    );
  });

  it('words policy outcomes as blocks and a raised tool as an execution failure', () => {
    const invalidated = toolResultMessage('c8', {
      outcome: 'invalidated',
      mismatches: ['result_version 1 != 2', 'result_sha256 changed'],
    }).content;
    const blocked = toolResultMessage('c9', {
      outcome: 'blocked',
      reason: 'only draft_trip_request is permitted after a failed validation',
    }).content;
    const failure = toolResultMessage('c10', { outcome: 'failure', error: 'store is read-only' }).content;
    expect(invalidated).toMatch(
      /^Blocked by policy: the approved snapshot no longer matches \(result_version 1 != 2; result_sha256 changed\); nothing ran\./,
    );
    expect(blocked).toBe(
      'Blocked by policy: only draft_trip_request is permitted after a failed validation. Nothing ran.',
    );
    expect(failure).toMatch(/^The tool ran and failed: store is read-only\./);
    for (const policy of [invalidated, blocked]) {
      expect(policy).not.toMatch(/ran and failed/);
      expect(policy).toMatch(/nothing ran/i);
    }
    expect(failure).not.toMatch(/Blocked by policy/);
  });

  it('says a cancelled request did not run', () => {
    expect(toolResultMessage('c11', { outcome: 'cancelled' }).content).toBe(
      'The approval request was cancelled before a decision; nothing ran.',
    );
    expect(toolResultMessage('c11', { outcome: 'cancelled', reason: 'run cancelled' }).content).toBe(
      'The approval request was cancelled (run cancelled) before a decision; nothing ran.',
    );
  });

  it('lists the known tools for an unknown tool', () => {
    const m = toolResultMessage('c12', {
      outcome: 'unknown_tool',
      tool: 'book_hotel',
      known_tools: ['search_trip_policy', 'draft_trip_request'],
    });
    expect(m.content).toBe(
      'Unknown tool "book_hotel"; nothing ran. Known tools: search_trip_policy, draft_trip_request.',
    );
  });

  it('lists the zod issues for invalid args', () => {
    const parsed = z
      .object({ days: z.int(), budget: z.int().max(1_000_000) })
      .safeParse({ days: 'two', budget: 5_000_000 });
    if (parsed.success) throw new Error('expected a schema error');
    const m = toolResultMessage('c13', {
      outcome: 'invalid_args',
      tool: 'draft_trip_request',
      issues: parsed.error.issues,
    });
    expect(m.content).toMatch(
      /^Invalid arguments for draft_trip_request; nothing ran\. Fix these and call again: days: .+; budget: .+\.$/,
    );
    expect(m.values?.issues).toHaveLength(2);
  });

  it('writes exactly the tool messages of the recorded conversation', () => {
    const recorded = Conversation.parse(fixture).filter((m): m is ToolMessage => m.role === 'tool');
    const byId = new Map(recorded.map((m) => [m.tool_call_id, m]));
    expect(
      toolResultMessage('call_4', {
        outcome: 'unknown_tool',
        tool: 'book_hotel',
        known_tools: ['search_trip_policy', 'draft_trip_request', 'validate_trip_request', 'submit_trip_request'],
      }),
    ).toEqual(byId.get('call_4'));
    expect(
      toolResultMessage('call_5', {
        outcome: 'invalid_args',
        tool: 'draft_trip_request',
        issues: [{ path: ['days'], message: 'Invalid input: expected int, received string' }],
      }),
    ).toEqual(byId.get('call_5'));
    expect(
      toolResultMessage('call_6', { outcome: 'denied', reason: 'The quarterly travel budget is used up.' }),
    ).toEqual(byId.get('call_6'));
    expect(
      toolResultMessage('call_7', {
        outcome: 'blocked',
        reason: 'a reviewer already rejected this exact call in this run',
      }),
    ).toEqual(byId.get('call_7'));
    expect(toolResultMessage('call_8', { outcome: 'failure', error: 'policy index unavailable' })).toEqual(
      byId.get('call_8'),
    );
  });
});
