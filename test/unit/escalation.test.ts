import { prepareCreate } from '../../src/client/create-request';
import { chainEvent, type AuditEvent } from '../../src/common/audit';
import { evidenceFacts } from '../../src/common/evidence-facts';
import { GateError } from '../../src/client/gate-error';
import {
  evidenceChain,
  levelSchedule,
  levelsPastExpiry,
  levelZeroTargets,
  rolesOutsideRule,
  type GateChain,
} from '../../src/common/escalation';
import { initialGateState, refuseDecision } from '../../src/common/gate-state';
import { validatePolicy } from '../../src/policy/reviewer-policy';
import { parsePolicyText } from '../../src/policy/parse';
import { refundBody } from '../support/gate-fixtures';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const chain: GateChain = evidenceChain('finance', {
  levels: [
    { after: '30m', notify: ['slack:#finance'] },
    { after: '2h', notify: ['email:cfo@example.com'], roles: ['cfo'] },
  ],
  repeat: 1,
});
const SETTINGS = {
  GATE_PUBLIC_URL: 'https://gate.example.com',
  GATE_SLACK_BOT_TOKEN: 'xoxb-test',
  GATE_SMTP_URL: 'smtp://127.0.0.1:2525',
  GATE_EMAIL_FROM: 'gate@example.com',
};

describe('the level schedule', () => {
  it('fires each level after its time from creation, then the loops of repeat after the last level', () => {
    const s = levelSchedule(chain, T0, T0 + 24 * 3600_000);
    expect(s.map((l) => [l.level, l.loop, (l.at - T0) / 60_000])).toEqual([
      [1, 0, 30],
      [2, 0, 120],
      [1, 1, 150],
      [2, 1, 240],
    ]);
    expect(s[1]).toMatchObject({ notify: ['email:cfo@example.com'], roles: ['cfo'] });
  });

  it('drops the levels at or after the expiry, so a chain never extends the TTL', () => {
    const s = levelSchedule(chain, T0, T0 + 150 * 60_000);
    expect(s.map((l) => [l.level, l.loop])).toEqual([
      [1, 0],
      [2, 0],
    ]);
  });

  it('reads durations as strings or seconds', () => {
    const c = evidenceChain('x', { levels: [{ after: 90 }, { after: '90s' }, { after: '2h' }], repeat: 0 });
    expect(c.levels.map((l) => l.after_seconds)).toEqual([90, 90, 7200]);
  });
});

describe('the TTL rule', () => {
  it('names every level at or after the expiry', () => {
    expect(levelsPastExpiry(chain, 7200)).toEqual([
      {
        path: 'escalation.levels[1].after',
        message: expect.stringContaining('level 2 fires 7200 s after creation, at or after the request expires'),
      },
    ]);
    expect(levelsPastExpiry(chain, 7201)).toEqual([]);
  });
});

describe('who is told at creation', () => {
  it("takes the request's targets, else the rule's, else the defaults; [] tells nobody", () => {
    expect(levelZeroTargets(['slack:#a'], ['slack:#b'], ['slack:#c'])).toEqual(['slack:#a']);
    expect(levelZeroTargets(undefined, ['slack:#b'], ['slack:#c'])).toEqual(['slack:#b']);
    expect(levelZeroTargets(undefined, undefined, ['slack:#c'])).toEqual(['slack:#c']);
    expect(levelZeroTargets([], undefined, ['slack:#c'])).toEqual([]);
  });

  it('refuses roles a chain adds beyond the roles its rule allows', () => {
    expect(rolesOutsideRule(chain, ['finance'])).toEqual(['cfo']);
    expect(rolesOutsideRule(chain, ['finance', 'cfo'])).toEqual([]);
    expect(rolesOutsideRule(chain, [])).toEqual([]); // anyone may decide: nothing to widen
  });
});

describe('creating a request with a chain', () => {
  const create = (over: Record<string, unknown>, settings: Record<string, string> = SETTINGS) =>
    prepareCreate(
      refundBody('corr-1', over),
      { agentId: 'agent_billing' },
      {
        nowMs: T0,
        notify: { settings, defaults: ['slack:#default'] },
      },
    );
  const refusal = (f: () => unknown): GateError => {
    try {
      f();
    } catch (err) {
      if (err instanceof GateError) return err;
      throw err;
    }
    throw new Error('expected a refusal');
  };

  it('binds the chain and the targets told at creation into the evidence', () => {
    const { input } = create({
      ttl_seconds: 3600,
      notify: ['slack:#refunds'],
      escalation: { levels: [{ after: '10m', notify: ['email:lead@example.com'] }] },
    });
    expect(input.payload.notify).toEqual(['slack:#refunds']);
    expect(input.payload.escalation).toEqual({
      name: 'inline',
      levels: [{ after_seconds: 600, notify: ['email:lead@example.com'] }],
      repeat: 0,
    });
    const plain = create({ ttl_seconds: 3600 }).input;
    expect(plain.payload.notify).toEqual(['slack:#default']); // GATE_NOTIFY when neither request nor rule names any
    expect(plain.payload_sha256).not.toBe(input.payload_sha256);
  });

  it('refuses with 422 a level at or after the TTL, naming the level', () => {
    const err = refusal(() => create({ ttl_seconds: 600, escalation: { levels: [{ after: 60 }, { after: '10m' }] } }));
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/level 2 fires 600 s after creation/);
    expect(err.details).toEqual([expect.objectContaining({ path: '$.escalation.levels[1].after' })]);
  });

  it('refuses with 422 a target no channel is configured for, naming the missing setting', () => {
    const err = refusal(() =>
      create({ escalation: { levels: [{ after: 60, notify: ['teams:finance'] }] }, notify: ['slack:#refunds'] }),
    );
    expect(err.status).toBe(422);
    expect(err.code).toBe('notification_not_configured');
    expect(err.message).toMatch(/GATE_TEAMS_WEBHOOKS/);
    expect(err.details).toEqual([
      expect.objectContaining({
        path: '$.escalation.levels[0].notify',
        message: expect.stringContaining('teams:finance'),
      }),
    ]);
    const noSlack = refusal(() => create({ notify: ['slack:#refunds'] }, { ...SETTINGS, GATE_SLACK_BOT_TOKEN: '' }));
    expect(noSlack.message).toMatch(/GATE_SLACK_BOT_TOKEN/);
  });

  it("refuses roles beyond the rule's with 422", () => {
    const policy = validatePolicy(
      { version: 1, rules: [{ action: 'refund.*', roles: ['finance'] }] },
      'a'.repeat(64),
      't',
    );
    const body = refundBody('corr-2', { escalation: { levels: [{ after: 60, roles: ['cfo'] }] } });
    const err = refusal(() => prepareCreate(body, { agentId: 'agent_billing' }, { nowMs: T0, policy }));
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/roles cfo/);
  });
});

describe('which chain a request gets', () => {
  const policy = parsePolicyText(
    [
      'version: 2',
      'escalations:',
      '  finance:',
      '    levels:',
      '      - after: 30m',
      '        notify: ["email:finance-leads@example.com"]',
      '    repeat: 2',
      'rules:',
      '  - id: refunds',
      '    action: refund.*',
      '    roles: [finance]',
      '    escalation: finance',
      '    notify: ["slack:#finance"]',
    ].join('\n'),
    'rules.yaml',
  );
  const create = (over: Record<string, unknown>) =>
    prepareCreate(
      refundBody('corr-4', { ttl_seconds: 7200, ...over }),
      { agentId: 'agent_billing' },
      {
        nowMs: T0,
        policy,
        notify: { settings: SETTINGS, defaults: ['slack:#default'] },
      },
    ).input.payload;

  it("copies the rule's chain and targets into the evidence when the request names none", () => {
    const p = create({});
    expect(p.escalation).toEqual({
      name: 'finance',
      levels: [{ after_seconds: 1800, notify: ['email:finance-leads@example.com'] }],
      repeat: 2,
    });
    expect(p.notify).toEqual(['slack:#finance']);
  });

  it("puts the request's own chain and targets in place of the rule's", () => {
    const p = create({ notify: ['slack:#refunds'], escalation: { levels: [{ after: 600 }] } });
    expect(p.escalation).toEqual({ name: 'inline', levels: [{ after_seconds: 600 }], repeat: 0 });
    expect(p.notify).toEqual(['slack:#refunds']);
    expect(p.policy?.escalation?.name).toBe('finance'); // what the rule said stays recorded
  });
});

describe('roles added by a level', () => {
  it('let a reviewer with the role decide only once the level has fired', () => {
    const policy = validatePolicy(
      { version: 1, rules: [{ action: 'refund.*', roles: ['finance', 'cfo'] }] },
      'b'.repeat(64),
      't',
    );
    const { input } = prepareCreate(
      refundBody('corr-3', { reviewer_roles: ['finance'], escalation: { levels: [{ after: 60, roles: ['cfo'] }] } }),
      { agentId: 'agent_billing' },
      { nowMs: T0, policy },
    );
    const state = initialGateState(input, new Date(T0).toISOString());
    const vote = {
      decision: 'approve',
      decision_id: 'd1',
      reviewer_id: 'carol',
      reviewer_roles: ['cfo'],
      payload_sha256: state.payload_sha256,
    };
    expect(refuseDecision(state, vote)?.type).toBe('IneligibleReviewer');
    state.roles_added = ['cfo'];
    expect(refuseDecision(state, vote)).toBeNull();
  });
});

describe('the evidence bundle facts of an escalated request', () => {
  const event = (prev: AuditEvent | undefined, type: string, actor: string, data: Record<string, unknown>) =>
    chainEvent(prev, {
      event_id: `evt_${type}_${actor}`,
      request_id: 'appr_1',
      event_type: type,
      actor_type: actor === 'approval-gate' ? 'system' : 'human',
      actor_id: actor,
      payload_sha256: 'a'.repeat(64),
      note: null,
      timestamp: new Date(T0).toISOString(),
      data,
    });
  const payload = {
    agent_id: 'agent_billing',
    args: {},
    reviewer_policy: { rule: 'refund.*', roles: ['finance'], approvals_required: 1, policy_sha256: null },
  };
  const trail = (escalatedFirst: boolean): AuditEvent[] => {
    const out: AuditEvent[] = [];
    const add = (type: string, actor: string, data: Record<string, unknown>) =>
      out.push(event(out[out.length - 1], type, actor, data));
    add('approval.requested', 'agent_billing', { approvals_required: 1 });
    const escalate = () =>
      add('approval.escalated', 'approval-gate', { level: 1, loop: 0, targets: [], roles_added: ['cfo'] });
    if (escalatedFirst) escalate();
    add('approval.approved', 'carol', {
      decision_id: 'd1',
      reviewer_roles: ['cfo'],
      args_sha256: evidenceFacts(payload, []).facts.final_args_sha256,
    });
    if (!escalatedFirst) escalate();
    return out;
  };

  it('counts a reviewer with a role a level added as eligible only after that level', () => {
    expect(evidenceFacts(payload, trail(true)).problems).toEqual([]);
    expect(evidenceFacts(payload, trail(false)).problems).toEqual([
      expect.objectContaining({
        check: 'quorum',
        message: expect.stringContaining('without one of the roles finance'),
      }),
    ]);
  });
});
