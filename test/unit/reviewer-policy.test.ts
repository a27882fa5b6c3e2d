import {
  actionMatches,
  isEligible,
  PolicyFileError,
  resolveRequirement,
  reviewFor,
  ruleFor,
  validatePolicy,
  type ReviewerPolicy,
} from '../../src/policy/reviewer-policy';
import { parsePolicyText } from '../../src/policy/parse';

const SHA = 'a'.repeat(64);
const policy: ReviewerPolicy = validatePolicy(
  {
    rules: [
      { action: 'refund.*', roles: ['finance'], min_approvals: 2 },
      { action: 'deploy.production', roles: ['sre', 'release-manager'] },
      { action: '*', roles: ['reviewer'] },
    ],
  },
  SHA,
  'test.json',
);

function problems(parsed: unknown): string[] {
  try {
    validatePolicy(parsed, SHA, 'rules.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyFileError);
    return (err as PolicyFileError).problems;
  }
  throw new Error('expected the file to be refused');
}

describe('action patterns', () => {
  it.each([
    ['refund.*', 'refund.create', true],
    ['refund.*', 'refund.batch.create', true],
    ['refund.*', 'refunds.create', false],
    ['refund.*', 'stripe.refund.create', false],
    ['*.delete', 'user.delete', true],
    ['*.delete', 'user.delete_all', false],
    ['deploy.production', 'deploy.production', true],
    ['deploy.production', 'deploy.productionx', false],
    ['*', 'anything.at_all', true],
  ])('%s matches %s: %s', (pattern, action, expected) => {
    expect(actionMatches(pattern, action)).toBe(expected);
  });

  it('applies the first matching rule in file order', () => {
    expect(ruleFor(policy, 'refund.create')?.action).toBe('refund.*');
    expect(ruleFor(policy, 'user.delete')?.action).toBe('*');
    expect(ruleFor(undefined, 'refund.create')).toBeUndefined();
  });
});

describe('validatePolicy', () => {
  it('defaults min_approvals to 1 and keeps the hash and source', () => {
    const p = validatePolicy({ rules: [{ action: 'a.b', roles: ['x'] }] }, SHA, 'f.yaml');
    expect(p.rules[0]).toEqual({ action: 'a.b', roles: ['x'], min_approvals: 1 });
    expect(p).toMatchObject({ sha256: SHA, source: 'f.yaml' });
  });

  it('names the place of every problem', () => {
    const found = problems({
      rules: [
        { action: 'Refund.*', roles: ['finance'] },
        { action: 'refund.*', roles: [], min_approvals: 0 },
        { action: 'a.b', roles: ['ok'], approvals: 2 },
      ],
    });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^rules\[0\]\.action: .*lower-case/),
        expect.stringMatching(/^rules\[1\]\.roles: /),
        expect.stringMatching(/^rules\[1\]\.min_approvals: /),
        expect.stringMatching(/^rules\[2\]: .*approvals/),
      ]),
    );
  });

  it('refuses a missing rules list, an unknown version and a top-level typo', () => {
    expect(problems({})).toEqual([expect.stringMatching(/^rules: /)]);
    expect(problems({ version: 2, rules: [] })).toEqual([expect.stringMatching(/^version: /)]);
    expect(problems({ rules: [], rule: [] })).toEqual([expect.stringMatching(/rule/)]);
  });

  it('refuses a rule that repeats an earlier pattern (it could never apply) and a role listed twice', () => {
    const found = problems({
      rules: [
        { action: 'a.b', roles: ['x'] },
        { action: 'a.b', roles: ['y', 'y'] },
      ],
    });
    expect(found).toEqual([
      'rules[1].roles: a role is listed twice',
      'rules[1].action: "a.b" repeats rules[0], so it could never apply',
    ]);
  });

  it('puts the file name and each problem in the message', () => {
    expect(() => validatePolicy({ rules: [{ action: 'a.b' }] }, SHA, '/etc/gate/rules.yaml')).toThrow(
      /reviewer policy \/etc\/gate\/rules\.yaml is invalid:\n {2}- rules\[0\]\.roles: /,
    );
  });
});

describe('parsePolicyText', () => {
  const yaml = 'rules:\n  - action: refund.*\n    roles: [finance]\n    min_approvals: 2\n';

  it('reads YAML and JSON to the same rules, each with the SHA-256 of its own bytes', () => {
    const fromYaml = parsePolicyText(yaml, 'rules.yaml');
    const json = JSON.stringify({ rules: [{ action: 'refund.*', roles: ['finance'], min_approvals: 2 }] });
    const fromJson = parsePolicyText(json, 'rules.json');
    expect(fromYaml.rules).toEqual(fromJson.rules);
    expect(fromYaml.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(fromYaml.sha256).not.toBe(fromJson.sha256);
    expect(parsePolicyText(yaml, 'rules.yaml').sha256).toBe(fromYaml.sha256);
  });

  it('says where the syntax breaks', () => {
    expect(() => parsePolicyText('rules:\n  - action: [unclosed\n', 'rules.yml')).toThrow(
      /rules\.yml is invalid:\n {2}- is not valid YAML at line \d/,
    );
    expect(() => parsePolicyText('{"rules": [', 'rules.json')).toThrow(/is not valid JSON/);
  });
});

describe('resolveRequirement', () => {
  const ok = (action: string, asked: Parameters<typeof resolveRequirement>[2]) => {
    const r = resolveRequirement(policy, action, asked);
    if ('problem' in r) throw new Error(r.problem);
    return r.requirement;
  };

  it('takes the rule for the action, with the rule file hash', () => {
    expect(ok('refund.create', {})).toEqual({
      rule: 'refund.*',
      roles: ['finance'],
      approvals_required: 2,
      policy_sha256: SHA,
    });
  });

  it('lets a request ask for more approvals, never fewer', () => {
    expect(ok('refund.create', { approvals_required: 3 }).approvals_required).toBe(3);
    expect(ok('refund.create', { approvals_required: 1 }).approvals_required).toBe(2);
  });

  it('lets a request narrow the roles', () => {
    expect(ok('deploy.production', { reviewer_roles: ['sre'] }).roles).toEqual(['sre']);
  });

  it('refuses a request that names a role the rule does not allow', () => {
    const r = resolveRequirement(policy, 'refund.create', { reviewer_roles: ['finance', 'intern'] });
    expect(r).toEqual({ problem: expect.stringMatching(/intern are not allowed to decide refund\.create/) });
  });

  it('without a matching rule keeps the request’s own roles and approvals', () => {
    const none = validatePolicy({ rules: [] }, SHA, 'empty.yaml');
    expect(resolveRequirement(none, 'refund.create', { approvals_required: 2, reviewer_roles: ['ops'] })).toEqual({
      requirement: { rule: null, roles: ['ops'], approvals_required: 2, policy_sha256: SHA },
    });
    expect(resolveRequirement(undefined, 'refund.create', {})).toEqual({
      requirement: { rule: null, roles: [], approvals_required: 1, policy_sha256: null },
    });
  });
});

describe('reviewFor (what every creator records: API creates, run gates, workflow gates)', () => {
  it('records the rule in the evidence and takes the larger approvals', () => {
    expect(reviewFor(policy, 'refund.create', { approvals_required: 1 })).toEqual({
      reviewer_policy: { rule: 'refund.*', roles: ['finance'], approvals_required: 2, policy_sha256: SHA },
      approvals_required: 2,
    });
    expect(reviewFor(policy, 'refund.create', { approvals_required: 3 })).toMatchObject({ approvals_required: 3 });
  });

  it('records nothing when neither a rule file nor the request limits who decides, so payloads hash as before', () => {
    expect(reviewFor(undefined, 'refund.create', { approvals_required: 2 })).toEqual({ approvals_required: 2 });
  });

  it('records the request’s own roles without a rule file', () => {
    expect(reviewFor(undefined, 'refund.create', { approvals_required: 1, reviewer_roles: ['ops'] })).toEqual({
      reviewer_policy: { rule: null, roles: ['ops'], approvals_required: 1, policy_sha256: null },
      approvals_required: 1,
    });
  });

  it('records a rule file that matched nothing (its hash says which file judged the request)', () => {
    const none = validatePolicy({ rules: [] }, SHA, 'empty.yaml');
    expect(reviewFor(none, 'refund.create', { approvals_required: 1 })).toEqual({
      reviewer_policy: { rule: null, roles: [], approvals_required: 1, policy_sha256: SHA },
      approvals_required: 1,
    });
  });

  it('refuses roles outside the rule: a request may only narrow them', () => {
    expect(reviewFor(policy, 'refund.create', { approvals_required: 1, reviewer_roles: ['support'] })).toEqual({
      problem: expect.stringMatching(/support are not allowed to decide refund\.create/),
    });
  });
});

describe('isEligible', () => {
  const req = { rule: 'refund.*', roles: ['finance', 'cfo'], approvals_required: 2, policy_sha256: SHA };

  it('needs one of the roles when the requirement names some', () => {
    expect(isEligible(req, ['cfo'])).toBe(true);
    expect(isEligible(req, ['engineering'])).toBe(false);
    expect(isEligible(req, [])).toBe(false);
    expect(isEligible(req)).toBe(false);
  });

  it('lets any reviewer decide when no roles are named', () => {
    expect(isEligible(undefined, [])).toBe(true);
    expect(isEligible({ ...req, roles: [] }, [])).toBe(true);
  });
});
