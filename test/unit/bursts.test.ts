import { acceptedLine, formatApproval, pendingDecisionsText } from '../../src/cli/format-approvals';
import { outcomeLine } from '../../src/cli/commands/decisions';
import { GateRequestError, shedOf } from '../../src/adapters/common/errors';
import { httpGate } from '../../src/adapters/common/http-transport';
import { retryAfterOf } from '../../src/api/errors';
import { behindS, MAX_RETRY_AFTER_S, shedVerdict } from '../../src/client/backlog-admission';
import { GateError } from '../../src/client/gate-error';
import { retryAfterSeconds, retryShed } from '../../src/client/shed-retry';
import { loadConfig } from '../../src/config';
import { pendingStep } from '../../src/mcp/status-guidance';

const NOW = 1_000_000;
const at = (ageS: number, count: number, dispatchRate = 0) => ({ ageS, count, dispatchRate, atMs: NOW });
const bound = { maxBacklogS: 5, staleMs: 5000 };

describe('shedding creates while the gate workers are behind', () => {
  it('admits while a new gate would wait within the bound, and sheds past it', () => {
    expect(shedVerdict(at(4.9, 300), NOW, bound)).toBeUndefined();
    expect(shedVerdict(at(5, 300), NOW, bound)).toBeUndefined();
    expect(shedVerdict(at(5.2, 300), NOW, bound)).toBe(1);
    expect(shedVerdict(at(20, 300, 40), NOW, bound)).toBe(3); // 300 tasks at 40/s: 7.5 s
  });

  it('counts the wait by the backlog over the dispatch rate, never past the oldest task, so stragglers shed nothing', () => {
    expect(behindS(at(18.7, 9, 10))).toBeCloseTo(0.9);
    expect(behindS(at(6, 1000, 10))).toBe(6);
    expect(behindS(at(6, 1000, 0))).toBe(6);
    expect(behindS(at(6, 0, 10))).toBe(0);
    expect(shedVerdict(at(18.7, 9, 10), NOW, bound)).toBeUndefined();
  });

  it('asks a shed create to come back after about the time the backlog needs to fall under the bound, 1 to 30 s', () => {
    expect(shedVerdict(at(8.5, 300), NOW, bound)).toBe(4);
    expect(shedVerdict(at(500, 9000), NOW, bound)).toBe(MAX_RETRY_AFTER_S);
  });

  it('admits on no reading, a stale one, an empty backlog, or a bound of 0', () => {
    expect(shedVerdict(undefined, NOW, bound)).toBeUndefined();
    expect(shedVerdict({ ...at(60, 300), atMs: NOW - 5001 }, NOW, bound)).toBeUndefined();
    expect(shedVerdict(at(60, 0), NOW, bound)).toBeUndefined();
    expect(shedVerdict(at(60, 300), NOW, { ...bound, maxBacklogS: 0 })).toBeUndefined();
  });

  it('reads GATE_MAX_BACKLOG_S and GATE_DECISION_WAIT_S as seconds, refusing what is not', () => {
    expect(loadConfig({}).maxBacklogS).toBe(5);
    expect(loadConfig({}).decisionWaitS).toBe(10);
    expect(loadConfig({ GATE_MAX_BACKLOG_S: '2.5', GATE_DECISION_WAIT_S: '0' })).toMatchObject({
      maxBacklogS: 2.5,
      decisionWaitS: 0,
    });
    expect(() => loadConfig({ GATE_MAX_BACKLOG_S: 'soon' })).toThrow(/GATE_MAX_BACKLOG_S/);
    expect(() => loadConfig({ GATE_DECISION_WAIT_S: '-1' })).toThrow(/GATE_DECISION_WAIT_S/);
  });

  it('sends Retry-After with a shed create, 1 s with other gate_busy answers, none with other errors', () => {
    expect(retryAfterOf(new GateError(503, 'gate_busy', 'behind', { retry_after_s: 7 }))).toBe(7);
    expect(retryAfterOf(new GateError(503, 'gate_busy', 'in-flight updates full'))).toBe(1);
    expect(retryAfterOf(new GateError(503, 'temporal_unavailable', 'down'))).toBeUndefined();
    expect(retryAfterOf(new GateError(409, 'gate_busy', 'not a 503', { retry_after_s: 7 }))).toBeUndefined();
  });
});

describe('retrying a shed create', () => {
  const shed = (retryAfterS?: number) => new GateRequestError(503, 'gate_busy', 'behind', undefined, retryAfterS);

  it('sends the same create again after each Retry-After, with a fifth of jitter at most, until it is taken', async () => {
    const waits: number[] = [];
    let calls = 0;
    const r = await retryShed(
      async () => {
        calls++;
        if (calls === 1) throw shed(3);
        if (calls === 2) throw shed(); // no Retry-After: 1 s
        return 'taken';
      },
      shedOf,
      { sleep: async (ms) => void waits.push(ms), random: () => 0.5 },
    );
    expect(r).toBe('taken');
    expect(waits).toEqual([3300, 1100]);
  });

  it('throws the last refusal once the next wait would pass the budget, and any other error at once', async () => {
    const waits: number[] = [];
    const always = retryShed(
      async () => {
        throw shed(20);
      },
      shedOf,
      { maxWaitMs: 45_000, sleep: async (ms) => void waits.push(ms), random: () => 0 },
    );
    await expect(always).rejects.toMatchObject({ code: 'gate_busy' });
    expect(waits).toEqual([20_000, 20_000]);
    let calls = 0;
    await expect(
      retryShed(
        async () => {
          calls++;
          throw new GateRequestError(409, 'idempotency_conflict', 'another payload');
        },
        shedOf,
        { sleep: async () => undefined },
      ),
    ).rejects.toMatchObject({ status: 409 });
    expect(calls).toBe(1);
  });

  it('takes the wait from the header, else from the error body', () => {
    expect(retryAfterSeconds(' 4 ')).toBe(4);
    expect(retryAfterSeconds('Wed, 21 Oct 2015 07:28:00 GMT')).toBeUndefined();
    expect(shedOf(new GateRequestError(503, 'gate_busy', 'x', { retry_after_s: 6 }))).toEqual({ retryAfterS: 6 });
    expect(shedOf(new GateRequestError(503, 'temporal_unavailable', 'x'))).toBeUndefined();
  });
});

describe("an adapter's HTTP transport", () => {
  it('sends a shed create again with the same idempotency key after the Retry-After, and returns the gate', async () => {
    const seen: { key: string | null; at: number }[] = [];
    const answers = [
      new Response(JSON.stringify({ error: { code: 'gate_busy', message: 'behind' } }), {
        status: 503,
        headers: { 'retry-after': '1' },
      }),
      new Response(
        JSON.stringify({ request_id: 'appr_1', status: 'requested', expires_at: 'x', payload_sha256: 'h' }),
        { status: 201 },
      ),
    ];
    const gate = httpGate({
      url: 'http://gate.test',
      agentKey: 'k',
      agentId: 'agent-1',
      fetch: async (_url, init) => {
        seen.push({ key: new Headers(init?.headers).get('idempotency-key'), at: Date.now() });
        return answers.shift()!;
      },
    });
    await expect(gate.create({ action: 'refund.create' }, 'key-1')).resolves.toMatchObject({ request_id: 'appr_1' });
    expect(seen.map((s) => s.key)).toEqual(['key-1', 'key-1']);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('throws a shed create at once when told not to wait', async () => {
    const gate = httpGate({
      url: 'http://gate.test',
      agentKey: 'k',
      agentId: 'agent-1',
      shedWaitMs: 0,
      fetch: async () =>
        new Response(JSON.stringify({ error: { code: 'gate_busy', message: 'behind' } }), {
          status: 503,
          headers: { 'retry-after': '1' },
        }),
    });
    await expect(gate.create({}, 'key-1')).rejects.toMatchObject({ status: 503, code: 'gate_busy', retryAfterS: 1 });
  });
});

describe('a decision accepted and pending', () => {
  const accepted = {
    request_id: 'appr_1',
    decision_id: 'd-1',
    decision: 'approve',
    reviewer_id: 'rev-1',
    status: 'requested',
    pending: true,
    applied: false,
    code: 'decision_accepted',
  };

  it('is printed by the CLI as accepted and pending, not as a vote or a new status', () => {
    const line = outcomeLine('appr_1', accepted);
    expect(line).toBe(acceptedLine('appr_1', accepted));
    expect(line).toMatch(/^approve accepted and pending on appr_1 \(decision d-1\)/);
    expect(line).toMatch(/gate approvals show appr_1/);
    expect(outcomeLine('appr_1', { status: 'approved', approvals: 1, approvals_required: 1 })).toBe(
      'appr_1 is now approved (1/1 approvals)',
    );
  });

  it('shows the decisions a gate has not applied yet beside what visibility knows', () => {
    const view = {
      request_id: 'appr_1',
      status: 'requested',
      stale: true,
      pending_decisions: [
        { decision_id: 'd-1', decision: 'approve', reviewer_id: 'rev-1', sent_at: '2030-01-01T00:00:00.000Z' },
      ],
    };
    expect(pendingDecisionsText(view)).toBe('approve by rev-1 (d-1), accepted 2030-01-01T00:00:00.000Z');
    expect(formatApproval(view, new Date('2030-01-01T00:00:01.000Z'))).toMatch(
      /pending:\s+approve by rev-1 \(d-1\)[\s\S]*gate workers are behind or away/,
    );
    expect(pendingDecisionsText({ pending_decisions: [] })).toBeUndefined();
  });

  it('tells an agent polling over MCP that a decision is on its way and nothing may run yet', () => {
    expect(pendingStep(1)).toMatch(/decision was accepted and is waiting to be applied.*Do not run the action yet/);
    expect(pendingStep(2)).toMatch(/decisions were accepted and are waiting/);
  });
});
