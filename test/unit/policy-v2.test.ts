import { judge, withDomainTier, type PolicyRequest } from '../../src/policy/judge';
import { lintPolicyText, parsePolicyText } from '../../src/policy/parse';
import { runPolicyTests, testDiff } from '../../src/policy/policy-tests';
import { replayPolicy } from '../../src/policy/replay';
import { compilePolicy } from '../../src/policy/compile';
import { PolicyFileError } from '../../src/policy/reviewer-policy';

const FILE = `
version: 2
defaults: { effect: require }
escalations:
  finance:
    levels:
      - after: 30m
        notify: ["slack:#finance-approvals"]
      - after: 2h
        roles: [cfo]
rules:
  - id: small-refunds
    action: refund.*
    when: args.amount <= 5000 && args.currency == "usd"
    effect: allow
  - id: wide-deploys
    action: deploy.production
    when: blast_radius.services > 3
    effect: block
    reason: "Change freeze: more than three services at once"
  - id: large-refunds
    action: refund.*
    when: args.amount > 100000
    roles: [finance]
    min_approvals: 2
    ttl: 8h
    escalation: finance
    notify: ["slack:#finance-approvals"]
    grants: { max_for: 4h, max_uses: 20 }
  - id: frozen-customers
    action: refund.*
    when: has(args.customer) && args.customer in ["cus_frozen"]
    effect: block
    reason: account frozen
  - id: new-rule-under-trial
    action: "*"
    when: args.amount > 50000
    effect: block
    mode: audit
  - id: noisy
    action: "*"
    when: args.amount > 1
    effect: require
    mode: warn
    reason: every amount is looked at
  - id: deploys
    action: deploy.*
    effect: require
`;

const policy = parsePolicyText(FILE, 'rules.yaml');

function req(over: Partial<PolicyRequest> = {}): PolicyRequest {
  return {
    action: 'refund.create',
    target: 'ch_1',
    summary: 'refund',
    args: { amount: 4000, currency: 'usd', customer: 'cus_1' },
    blast_radius: {},
    preconditions: {},
    agent: 'agent-1',
    tenant: 'default',
    ...over,
  };
}

describe('judging a request by a version 2 file', () => {
  it('allows a small refund, naming the rule, the values that decided and the file hash', () => {
    const j = judge(policy, req());
    expect(j.effect).toBe('allow');
    expect(j.decided_by).toBe('policy:small-refunds');
    expect(j.evidence).toMatchObject({
      rule_id: 'small-refunds',
      effect: 'allow',
      policy_sha256: policy.sha256,
      values: { 'args.amount': 4000, 'args.currency': 'usd' },
    });
  });

  it('requires two finance reviewers for a large refund and carries ttl, grants, chain and notify', () => {
    const j = judge(policy, req({ args: { amount: 200000, currency: 'usd', customer: 'cus_1' } }));
    expect(j.effect).toBe('require');
    expect(j.rule_id).toBe('large-refunds');
    expect(j.review).toEqual({
      reviewer_policy: {
        rule: 'large-refunds',
        roles: ['finance'],
        approvals_required: 2,
        policy_sha256: policy.sha256,
      },
      approvals_required: 2,
    });
    expect(j.ttl_seconds).toBe(8 * 3600);
    expect(j.grants).toEqual({ max_for_seconds: 4 * 3600, max_uses: 20 });
    expect(j.evidence?.escalation).toEqual({
      name: 'finance',
      levels: [
        { after_seconds: 1800, notify: ['slack:#finance-approvals'] },
        { after_seconds: 7200, roles: ['cfo'] },
      ],
      repeat: 0,
    });
    expect(j.evidence?.notify).toEqual(['slack:#finance-approvals']);
  });

  it('lets a later block beat an earlier allow', () => {
    const j = judge(policy, req({ args: { amount: 100, currency: 'usd', customer: 'cus_frozen' } }));
    expect(j.effect).toBe('block');
    expect(j.rule_id).toBe('frozen-customers');
    expect(j.reason).toBe('account frozen');
  });

  it('blocks a wide deploy with its reason and requires a narrow one', () => {
    const wide = judge(policy, req({ action: 'deploy.production', args: {}, blast_radius: { services: 5 } }));
    expect(wide).toMatchObject({ effect: 'block', rule_id: 'wide-deploys' });
    expect(wide.reason).toMatch(/Change freeze/);
    const narrow = judge(policy, req({ action: 'deploy.production', args: {}, blast_radius: { services: 2 } }));
    expect(narrow).toMatchObject({ effect: 'require', rule_id: 'deploys' });
  });

  it('takes defaults.effect when no enforced rule matches', () => {
    const j = judge(policy, req({ action: 'user.delete', args: {} }));
    expect(j).toMatchObject({ effect: 'require', rule_id: null, decided_by: 'policy:defaults' });
    const allowAll = parsePolicyText('version: 2\ndefaults: { effect: allow }\nrules: []\n', 'a.yaml');
    expect(judge(allowAll, req()).effect).toBe('allow');
  });

  it('fails closed: a condition that cannot be evaluated matches block and require rules, never allow rules', () => {
    // No amount: small-refunds (allow) cannot say yes; large-refunds (require) fails closed and decides.
    const j = judge(policy, req({ args: { currency: 'usd', customer: 'cus_1' } }));
    expect(j.effect).toBe('require');
    expect(j.rule_id).toBe('large-refunds');
    expect(j.evidence?.error).toMatch(/amount/);
    // A string where a number is compared: the block rule fails closed and wins.
    const b = judge(policy, req({ action: 'deploy.production', args: {}, blast_radius: { services: 'many' } }));
    expect(b).toMatchObject({ effect: 'block', rule_id: 'wide-deploys' });
    expect(b.evidence?.error).toBeDefined();
  });

  it('records shadow rules without letting them decide, warn ones with a message', () => {
    const j = judge(policy, req({ args: { amount: 60000, currency: 'usd', customer: 'cus_1' } }));
    expect(j.effect).toBe('require'); // the audit-mode block changes nothing
    expect(j.rule_id).toBeNull();
    expect(j.shadow.map((s) => [s.rule_id, s.mode, s.effect])).toEqual([
      ['new-rule-under-trial', 'audit', 'block'],
      ['noisy', 'warn', 'require'],
    ]);
    expect(j.shadow[1]!.message).toMatch(/noisy \(warn\) would require approval.*every amount/);
    expect(j.shadow[0]!.values).toEqual({ 'args.amount': 60000 });
  });

  it('lets the request only tighten: reviewers asked for turn an allow into a require', () => {
    const j = judge(policy, req({ approvals_required: 2 }));
    expect(j.effect).toBe('require');
    expect(j.review).toMatchObject({ approvals_required: 2 });
    const narrow = judge(policy, req({ args: { amount: 200000, currency: 'usd' }, reviewer_roles: ['support'] }));
    expect(narrow.review).toEqual({ problem: expect.stringMatching(/support are not allowed/) });
  });

  it('combines with a domain tier: the stricter wins, approvals the larger', () => {
    const allowed = judge(policy, req());
    expect(withDomainTier(allowed, { tier: 'require', approvals_required: 2 })).toMatchObject({
      effect: 'require',
      review: { approvals_required: 2 },
      evidence: { effect: 'require', domain_tier: 'require' },
    });
    expect(withDomainTier(allowed, { tier: 'block', reason: 'validate first' })).toMatchObject({
      effect: 'block',
      reason: 'validate first',
    });
    const blocked = judge(policy, req({ args: { amount: 1, currency: 'usd', customer: 'cus_frozen' } }));
    expect(withDomainTier(blocked, { tier: 'allow' }).effect).toBe('block');
  });

  it('explains every rule in file order with what matched', () => {
    const j = judge(policy, req(), { trace: true });
    expect(j.trace).toHaveLength(7);
    expect(j.trace![0]).toMatchObject({
      rule_id: 'small-refunds',
      action_matched: true,
      when_matched: true,
      decided: true,
    });
    expect(j.trace![1]).toMatchObject({ rule_id: 'wide-deploys', action_matched: false, matched: false });
    expect(j.trace![2]).toMatchObject({
      rule_id: 'large-refunds',
      when_matched: false,
      values: { 'args.amount': 4000 },
    });
  });

  it('compiles a file once per hash', () => {
    expect(compilePolicy(policy.v2!, policy.sha256)).toBe(compilePolicy(policy.v2!, policy.sha256));
  });

  it('keeps version 1 files: every request requires a person, the rule names who', () => {
    const v1 = parsePolicyText('version: 1\nrules:\n  - action: refund.*\n    roles: [finance]\n', 'v1.yaml');
    const j = judge(v1, req());
    expect(j).toMatchObject({ effect: 'require', version: 1 });
    expect(j.evidence).toBeUndefined();
    expect(j.review).toMatchObject({ reviewer_policy: { rule: 'refund.*', roles: ['finance'] } });
  });
});

describe('gate policy lint', () => {
  const lint = (text: string) => lintPolicyText(text, 'rules.yaml').problems;

  it('names the place of each problem: schema, CEL syntax and types, repeated ids, unknown chains, unreachable rules', () => {
    const problems = lint(`
version: 2
escalations:
  ops: { levels: [ { after: 9h } ] }
rules:
  - id: a
    action: refund.*
    when: args.amount <=
  - id: b
    action: refund.*
    when: action > 5
  - id: a
    action: deploy.*
    effect: maybe
  - id: c
    action: refund.*
  - id: d
    action: refund.create
    effect: allow
  - id: e
    action: x.y
    escalation: nope
  - id: f
    action: x.z
    ttl: 8h
    escalation: ops
  - id: g
    action: x.w
    effect: allow
    grants: { max_for: 1h, max_uses: 2 }
  - id: h
    action: x.v
    when: target
`);
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^rules\[2\]\.effect: /)]));
    const fixed = lint(`
version: 2
escalations:
  ops: { levels: [ { after: 9h } ] }
rules:
  - id: a
    action: refund.*
    when: args.amount <=
  - id: b
    action: refund.*
    when: action > 5
  - id: a
    action: deploy.*
  - id: c
    action: refund.*
  - id: d
    action: refund.create
    effect: allow
  - id: e
    action: x.y
    escalation: nope
  - id: f
    action: x.z
    ttl: 8h
    escalation: ops
  - id: g
    action: x.w
    effect: allow
    grants: { max_for: 1h, max_uses: 2 }
  - id: h
    action: x.v
    when: target
tests:
  - name: t
    request: { action: refund.create }
    expect: { effect: allow, rule_id: zz }
`);
    expect(fixed).toEqual([
      expect.stringMatching(/^rules\[0\]\.when: /),
      expect.stringMatching(/^rules\[1\]\.when: no such overload: string > int/),
      'rules[2].id: "a" repeats rules[0].id',
      expect.stringMatching(/^rules\[4\]: unreachable: rules\[3\] \("c"\)/),
      'rules[5].escalation: no chain "nope" in escalations (there are ops)',
      expect.stringMatching(
        /^rules\[6\]\.escalation: escalations\.ops\.levels\[0\] \(after 9h\) is at or after the rule's ttl \(8h\)/,
      ),
      'rules[7].grants: only a require rule has standing grants (this one is allow)',
      'rules[8].when: a condition must be a bool, this one is string',
      'tests[0].expect.rule_id: no rule has the id "zz"',
    ]);
  });

  it('refuses to load a file with problems, naming each', () => {
    expect(() =>
      parsePolicyText('version: 2\nrules:\n  - id: x\n    action: a.b\n    when: "nope >"\n', 'r.yaml'),
    ).toThrow(PolicyFileError);
  });

  it('finds nothing wrong with a good file', () => {
    expect(lint(FILE)).toEqual([]);
  });
});

describe("the file's own tests", () => {
  it('passes matching cases and shows a diff for a failing one', () => {
    const p = parsePolicyText(
      `${FILE}
tests:
  - name: small refund passes
    request: { action: refund.create, args: { amount: 100, currency: usd } }
    expect: { effect: allow, rule_id: small-refunds }
  - name: wrong expectation
    request: { action: deploy.production, blast_radius: { services: 9 } }
    expect: { effect: require }
`,
      't.yaml',
    );
    const results = runPolicyTests(p);
    expect(results.map((r) => r.ok)).toEqual([true, false]);
    expect(testDiff(results[1]!)).toEqual(['- effect: require', '+ effect: block']);
  });
});

describe('replaying recorded requests under a new file', () => {
  it('counts per rule what would change', () => {
    const records = [1000, 2000, 200000, 300000, 60000].map((amount, i) => ({
      request_id: `r${i}`,
      at: `2026-01-0${i + 1}T00:00:00.000Z`,
      request: req({ args: { amount, currency: 'usd' } }),
      was: { effect: 'require' as const, rule_id: null },
    }));
    const r = replayPolicy(policy, records);
    expect(r).toMatchObject({ total: 5, changed: 2 });
    expect(r.lines).toEqual([
      { rule_id: 'small-refunds', was: 'require', would: 'allow', requests: 2 },
      { rule_id: 'large-refunds', was: 'require', would: 'require', requests: 2 },
      { rule_id: 'defaults', was: 'require', would: 'require', requests: 1 },
    ]);
  });
});
