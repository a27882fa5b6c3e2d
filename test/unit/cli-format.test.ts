import fs from 'node:fs';
import path from 'node:path';
import { CommanderError } from 'commander';
import { chainEvent, type AuditEvent } from '../../src/common/audit';
import { ApiError, CheckFailedError, ExitCode, UnreachableError, UsageError } from '../../src/cli/errors';
import { exitCodeFor } from '../../src/cli/exit-code';
import { approvalItems, formatApproval, formatApprovalList } from '../../src/cli/format-approvals';
import { formatAuditTable, formatVerdict, verifyAudit } from '../../src/cli/format-audit';
import { formatRun } from '../../src/cli/format-runs';
import { describeError } from '../../src/cli/io';
import { main } from '../../src/cli/index';
import { parseJsonObject } from '../../src/cli/options';
import { relativeTime, renderTable, truncate } from '../../src/cli/table';

const NOW = new Date('2030-01-01T00:00:00.000Z');

function bufferIo() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) }, out, err };
}

function trail(requestId: string): AuditEvent[] {
  const base = {
    request_id: requestId,
    actor_type: 'system' as const,
    actor_id: 'approval-gate',
    payload_sha256: null,
    note: null,
    data: {},
  };
  const a = chainEvent(undefined, {
    ...base,
    event_id: 'e0',
    event_type: 'approval.requested',
    timestamp: '2030-01-01T00:00:00.000Z',
  });
  const b = chainEvent(a, {
    ...base,
    event_id: 'e1',
    event_type: 'approval.approved',
    timestamp: '2030-01-01T00:01:00.000Z',
    note: 'looks right',
  });
  return [a, b];
}

describe('table formatting', () => {
  it('aligns columns under their headers and trims trailing spaces', () => {
    const out = renderTable(
      ['ID', 'STATUS'],
      [
        ['a', 'requested'],
        ['long-id', 'ok'],
      ],
    );
    expect(out.split('\n')).toEqual(['ID       STATUS', 'a        requested', 'long-id  ok']);
  });

  it('truncates wide cells with an ellipsis and keeps each row on one line', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(renderTable(['X'], [['one\ntwo']])).toBe('X\none two');
  });

  it('says how far a deadline is from now', () => {
    expect(relativeTime('2030-01-01T00:59:00.000Z', NOW)).toBe('in 59m');
    expect(relativeTime('2029-12-31T21:00:00.000Z', NOW)).toBe('3h ago');
    expect(relativeTime('not a date', NOW)).toBe('');
  });
});

describe('approval formatting', () => {
  const summaryRow = {
    request_id: 'appr_1',
    status: 'requested',
    action: 'refund.create',
    target: 'order/42',
    summary: 'Refund 50 EUR',
    expires_at: '2030-01-01T01:00:00.000Z',
  };
  const fullState = {
    request_id: 'appr_2',
    status: 'approved',
    payload: {
      summary: 'Deploy v2',
      action: 'deploy.run',
      target: 'svc/api',
      agent_id: 'bot',
      args: { version: 2 },
      expires_at: '2030-01-02T00:00:00.000Z',
    },
    payload_sha256: 'f'.repeat(64),
    approvals_required: 2,
    votes: [{ reviewer_id: 'ann' }, { reviewer_id: 'bob' }],
    final_args: { version: 3 },
    expires_at: '2030-01-02T00:00:00.000Z',
  };

  it('lists id, status, action, target, summary and expiry as aligned rows', () => {
    const lines = formatApprovalList([summaryRow, { ...fullState }], NOW).split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+ACTION\s+TARGET\s+SUMMARY\s+EXPIRES$/);
    expect(lines[1]).toMatch(
      /^appr_1\s+requested\s+refund\.create\s+order\/42\s+Refund 50 EUR\s+2030-01-01T01:00:00.000Z \(in 1h\)$/,
    );
    expect(lines[2]).toContain('Deploy v2');
    expect(lines[1]!.indexOf('requested')).toBe(lines[2]!.indexOf('approved'));
  });

  it('reads lists in any of the shapes the API may wrap them in', () => {
    expect(approvalItems([summaryRow])).toHaveLength(1);
    expect(approvalItems({ approvals: [summaryRow] })).toHaveLength(1);
    expect(approvalItems({ items: [summaryRow] })).toHaveLength(1);
    expect(formatApprovalList([])).toBe('no approval requests match');
  });

  it('shows a request as a block with approvals x/y, pretty args and the payload hash', () => {
    const out = formatApproval(fullState, NOW);
    expect(out).toMatch(/summary:\s+Deploy v2/);
    expect(out).toMatch(/approvals:\s+2\/2/);
    expect(out).toContain(`payload_sha256: ${'f'.repeat(64)}`);
    expect(out).toContain('"version": 2');
    expect(out).toContain('args after modification (these run):');
    expect(out).toMatch(/expires:\s+2030-01-02T00:00:00.000Z \(in 24h\)/);
  });
});

describe('audit formatting and verification', () => {
  it('prints seq, time, event, actor and note', () => {
    const lines = formatAuditTable(trail('appr_1')).split('\n');
    expect(lines[0]).toMatch(/^SEQ\s+TIME\s+EVENT\s+ACTOR\s+NOTE$/);
    expect(lines[2]).toMatch(
      /^1\s+2030-01-01T00:01:00.000Z\s+approval\.approved\s+system:approval-gate\s+looks right$/,
    );
  });

  it('accepts an intact chain even when the API adds fields', () => {
    const events = trail('appr_1').map((e) => ({ ...e, recorded_at: 'x' }));
    const verdict = verifyAudit('appr_1', events);
    expect(verdict).toEqual({ ok: true, count: 2 });
    expect(formatVerdict(verdict)).toMatch(/^OK: 2 events/);
  });

  it('points at the first altered event', () => {
    const events = trail('appr_1');
    events[1] = { ...events[1]!, note: 'edited later' };
    const verdict = verifyAudit('appr_1', events);
    expect(verdict.ok).toBe(false);
    expect(formatVerdict(verdict)).toMatch(/^BROKEN at seq 1: .*altered/);
  });

  it('refuses a trail that belongs to another request or is empty', () => {
    expect(verifyAudit('appr_2', trail('appr_1')).ok).toBe(false);
    expect(verifyAudit('appr_1', []).ok).toBe(false);
  });
});

describe('exit codes', () => {
  it('maps usage errors to 2, refusals and failed checks to 1, help to 0', () => {
    expect(exitCodeFor(new CommanderError(1, 'commander.unknownCommand', 'x'))).toBe(ExitCode.Usage);
    expect(exitCodeFor(new CommanderError(1, 'commander.missingMandatoryOptionValue', 'x'))).toBe(ExitCode.Usage);
    expect(exitCodeFor(new CommanderError(0, 'commander.helpDisplayed', 'x'))).toBe(ExitCode.Ok);
    expect(exitCodeFor(new UsageError('x'))).toBe(ExitCode.Usage);
    expect(exitCodeFor(new ApiError(409, 'illegal_transition', 'x'))).toBe(ExitCode.Refused);
    expect(exitCodeFor(new ApiError(500, 'internal', 'x'))).toBe(ExitCode.Refused);
    expect(exitCodeFor(new UnreachableError('http://x', new Error('ECONNREFUSED')))).toBe(ExitCode.Refused);
    expect(exitCodeFor(new CheckFailedError('broken'))).toBe(ExitCode.Refused);
  });

  it('prints server refusals as error: code: message with details', () => {
    expect(
      describeError(
        new ApiError(409, 'illegal_transition', 'cannot approve a request that is approved', { status: 'approved' }),
      ),
    ).toBe('error: illegal_transition: cannot approve a request that is approved\n{\n  "status": "approved"\n}');
  });

  it('refuses bad JSON and non-objects for --args', () => {
    expect(() => parseJsonObject('{bad')).toThrow(/not valid JSON/);
    expect(() => parseJsonObject('[1]')).toThrow(/JSON object/);
    expect(parseJsonObject('{"budget":5}')).toEqual({ budget: 5 });
  });

  it.each([
    [['nope']],
    [['reject', 'appr_1']],
    [['modify', 'appr_1', '--args', '{bad']],
    [['approvals', 'show']],
    [['keys', 'create', '--kind', 'robot', '--id', 'x']],
    [['approvals', 'list', '--limit', '0']],
  ])('exits 2 without calling the server for bad usage: gate %j', async (argv) => {
    const { io, err } = bufferIo();
    expect(await main(argv, io)).toBe(ExitCode.Usage);
    expect(err.join('')).toMatch(/error:/);
  });

  it('exits 0 for --help', async () => {
    const { io, out } = bufferIo();
    expect(await main(['approve', '--help'], io)).toBe(ExitCode.Ok);
    expect(out.join('')).toContain('Usage: gate approve');
  });

  it.each([['--version'], ['-V']])('prints the package version for %s and exits 0', async (flag) => {
    const { io, out } = bufferIo();
    expect(await main([flag], io)).toBe(ExitCode.Ok);
    const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
    expect(out.join('').trim()).toBe(version);
  });
});

describe('run formatting', () => {
  it('shows status, the conversation without the system prompt, and what the run waits on', () => {
    const out = formatRun({
      run_id: 'run_1',
      status: 'waiting_approval',
      goal: 'file a trip',
      messages: [
        { role: 'system', content: 'you are an agent' },
        { role: 'user', content: 'file a trip' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'submit_trip_request', args: {} }] },
        { role: 'tool', tool_call_id: 'c0', outcome: 'success', content: 'validated' },
      ],
      pending_approvals: [{ call_id: 'c1', request_id: 'appr_9', tool: 'submit_trip_request' }],
      pending_interactions: [],
    });
    expect(out).toMatch(/status:\s+waiting_approval/);
    expect(out).not.toContain('you are an agent');
    expect(out).toContain('assistant -> submit_trip_request({}) [c1]');
    expect(out).toContain('tool [c0] success: validated');
    expect(out).toContain('appr_9  submit_trip_request  call c1');
  });
});

describe('terminal safety', () => {
  it('shows escape sequences and bidi overrides as ? but keeps newlines and tabs', async () => {
    const { terminalSafe } = await import('../../src/cli/io');
    expect(terminalSafe('Refund 5 USD\u001b[2K\r\u001b[32mRefund 5 USD (verified)\u001b[0m\n\tnext \u202eevil')).toBe(
      'Refund 5 USD?[2K??[32mRefund 5 USD (verified)?[0m\n\tnext ?evil',
    );
  });
});
