import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// `gate policy lint|test|explain` on files, as an operator runs them before a deploy: no server.

const ROOT = path.resolve(__dirname, '../..');
let dir: string;

function gate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, GATE_CLI_FROM_SOURCE: '1', GATE_POLICY_FILE: '' };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'bin', 'gate.js'), ...args],
      { cwd: ROOT, env, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

const GOOD = `version: 2
defaults: { effect: require }
escalations:
  finance: { levels: [ { after: 30m, notify: ["slack:#finance"] } ] }
rules:
  - id: small-refunds
    action: refund.*
    when: args.amount <= 5000
    effect: allow
  - id: large-refunds
    action: refund.*
    when: args.amount > 100000
    roles: [finance]
    min_approvals: 2
    ttl: 8h
    escalation: finance
tests:
  - name: small refunds pass
    request: { action: refund.create, args: { amount: 100 } }
    expect: { effect: allow, rule_id: small-refunds }
  - name: large refunds ask finance
    request: { action: refund.create, args: { amount: 200000 } }
    expect: { effect: require, rule_id: large-refunds }
`;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-policy-cli-'));
});

describe('gate policy lint', () => {
  it('passes a good file with its version, rule count and hash', async () => {
    const r = await gate(['policy', 'lint', file('good.yaml', GOOD)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/good\.yaml: ok \(version 2, 2 rules, sha256 [0-9a-f]{64}\)/);
  });

  it('names every problem with its place and exits 1', async () => {
    const bad = file(
      'bad.yaml',
      `version: 2
rules:
  - id: a
    action: refund.*
  - id: b
    action: refund.create
    when: args.amount > 5
  - id: c
    action: deploy.*
    when: blast_radius.services >
  - id: d
    action: deploy.*
    when: action * 2 == 4
  - id: e
    action: x.y
    escalation: finance
`,
    );
    const r = await gate(['policy', 'lint', bad, '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(false);
    expect(out.problems).toEqual([
      expect.stringMatching(/^rules\[1\]: unreachable: rules\[0\] \("a"\)/),
      expect.stringMatching(/^rules\[2\]\.when: /),
      expect.stringMatching(/^rules\[3\]\.when: no such overload/),
      'rules[4].escalation: no chain "finance" in escalations',
    ]);
    const human = await gate(['policy', 'lint', bad]);
    expect(human.stdout.split('\n')[0]).toMatch(/bad\.yaml: rules\[1\]: unreachable/);
  });
});

describe('gate policy test', () => {
  it('runs the tests: cases of a good file', async () => {
    const r = await gate(['policy', 'test', file('tested.yaml', GOOD)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('2 passed, 0 failed');
  });

  it('exits 1 with a diff when a case fails', async () => {
    const wrong = GOOD.replace('expect: { effect: require, rule_id: large-refunds }', 'expect: { effect: allow }');
    const r = await gate(['policy', 'test', file('wrong.yaml', wrong)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}large refunds ask finance\n\s+- effect: allow\n\s+\+ effect: require/);
    expect(r.stdout).toContain('1 passed, 1 failed');
  });
});

describe('gate policy explain --policy', () => {
  it('shows the outcome, each rule with its match and values, and the hash', async () => {
    const req = file('req.json', JSON.stringify({ action: 'refund.create', args: { amount: 200000 } }));
    const r = await gate(['policy', 'explain', '--request', req, '--policy', path.join(dir, 'good.yaml'), '--json']);
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(e.outcome).toMatchObject({
      effect: 'require',
      rule_id: 'large-refunds',
      approvals_required: 2,
      roles: ['finance'],
      ttl_seconds: 28800,
    });
    expect(e.rules).toEqual([
      expect.objectContaining({
        rule_id: 'small-refunds',
        action_matched: true,
        when_matched: false,
        values: { 'args.amount': 200000 },
      }),
      expect.objectContaining({ rule_id: 'large-refunds', when_matched: true, decided: true }),
    ]);
    expect(e.policy_sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
