import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { createActivities } from '../../src/worker/activities';
import { createApiServer } from '../../src/api/server';
import { GateClient } from '../../src/client/gate-client';
import { tripDomain } from '../../examples/trip';
import { loadPolicyFile } from '../../src/policy/load-file';
import { digest } from '../../src/common/hashing';
import { AuditStore } from '../../src/store/audit-store';
import { openSqlite, type Db } from '../../src/store/db';
import { GrantStore } from '../../src/store/grant-store';
import { KeyStore } from '../../src/store/key-store';
import { approvalGatePlugin } from '../../src/worker';
import * as libraryActivities from '../fixtures/library/activities';
import { decidePending, startRun, waitForRun } from '../support/run-harness';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';
import { evidence } from './api-harness';
import { waitFor } from '../support/wait';
import { apiCall, type ApiResponse } from '../support/http';

/**
 * A version 2 rule file on the dev server, from every front door: HTTP creates, an agent
 * run's tool calls and `requireApproval`. allow and block give gates decided at creation
 * (`policy:<rule>`), require asks people; block beats allow; conditions that cannot be
 * evaluated fail closed; shadow rules are recorded and never enforced; standing grants are
 * used, run out, expire and are revoked; and `gate policy replay` re-judges what was recorded.
 */

const RULES = `version: 2
defaults: { effect: require }
rules:
  - id: small-refunds
    action: stripe.refund.*
    when: args.amount <= 5000 && args.currency == "usd"
    effect: allow
  - id: frozen
    action: stripe.refund.*
    when: has(args.customer) && args.customer == "cus_frozen"
    effect: block
    reason: the customer's account is frozen
  - id: wide-deploys
    action: deploy.production
    when: blast_radius.services > 3
    effect: block
    reason: "Change freeze: more than three services at once"
  - id: large-refunds
    action: stripe.refund.*
    when: args.amount > 100000
    roles: [finance]
    min_approvals: 2
    grants: { max_for: 4h, max_uses: 20 }
  - id: trusted-refunds
    action: stripe.refund.*
    when: args.amount > 20000
    grants: { max_for: 1h, max_uses: 2 }
  - id: trial-large
    action: "*"
    when: args.amount > 50000
    effect: block
    mode: audit
  - id: fraud-next-week
    action: stripe.refund.*
    when: has(args.reason) && args.reason == "fraud"
    effect: block
    mode: warn
    reason: fraud refunds will be blocked from next week
  - id: wf-small
    action: refund.create
    when: args.cents <= 1000
    effect: allow
  - id: wf-too-large
    action: refund.create
    when: args.cents > 900000
    effect: block
    reason: too large for a workflow refund
  - id: trip-ceiling
    action: trip.submit
    when: args.budget > 2500000
    effect: block
    reason: over the company's trip ceiling
  - id: trip-abroad
    action: trip.submit
    when: args.destination == "Tokyo"
    effect: require
  - id: trip-steps
    action: trip.*
    effect: allow
`;

let dir: string;
let db: Db;
let audit: AuditStore;
let runWorker: RunningWorker;
let libConnection: NativeConnection;
let libWorker: Worker;
let libRunning: Promise<void>;
let libQueue: string;
let client: Client;
let connection: Connection;
let app: FastifyInstance;
let url: string;
let policySha = '';
const K = { agent: '', fin1: '', fin2: '', rev: '' };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-policy-v2-'));
  const policyFile = path.join(dir, 'rules.yaml');
  fs.writeFileSync(policyFile, RULES);
  const policy = loadPolicyFile(policyFile);
  policySha = policy.sha256;
  db = openSqlite(path.join(dir, 'gate.db'));
  const { activities } = await createActivities({ db, domains: [tripDomain], policy });
  runWorker = await startTestWorker(activities);
  libQueue = `policy-v2-${randomUUID()}`;
  libConnection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  libWorker = await Worker.create({
    connection: libConnection,
    taskQueue: libQueue,
    workflowsPath: require.resolve('../fixtures/library/workflows'),
    activities: libraryActivities,
    plugins: [approvalGatePlugin({ db, webhookUrls: [], policyFile })],
  });
  libRunning = libWorker.run();
  ({ client, connection } = await testClient());
  audit = new AuditStore(db);
  const keys = new KeyStore(db);
  await keys.migrate();
  const grants = new GrantStore(db);
  await grants.migrate();
  const gate = new GateClient(client, { taskQueue: runWorker.taskQueue, audit, webhookReceivers: 0, policy, grants });
  app = createApiServer({ gate, keys, audit, temporal: client, policy, grants });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  K.agent = (await keys.create('agent', 'agent-1')).key;
  K.fin1 = (await keys.create('reviewer', 'fin-1', { roles: ['finance'] })).key;
  K.fin2 = (await keys.create('reviewer', 'fin-2', { roles: ['finance'] })).key;
  K.rev = (await keys.create('reviewer', 'rev-1')).key;
}, 120_000);

afterAll(async () => {
  await app?.close();
  libWorker?.shutdown();
  await libRunning;
  await libConnection?.close();
  await runWorker?.stop();
  await connection?.close();
  await db?.close();
});

const call = (method: string, p: string, key?: string, body?: unknown): Promise<ApiResponse> =>
  apiCall(url, method, p, key, body);

/** A gate once its first task has run (not the visibility summary), in `status`. */
const gateIn = (id: string, status: string) =>
  waitFor(`gate ${id} ${status}`, async () => {
    const r = await call('GET', `/v1/approvals/${id}`, K.rev);
    return r.status === 200 && !r.body.stale && r.body.status === status ? r.body : undefined;
  });

/** The gate's audit trail once it holds an event of `type`. */
const trailWith = (id: string, type: string) =>
  waitFor(`${type} in the trail of ${id}`, async () => {
    const r = await call('GET', `/v1/approvals/${id}/audit`, K.rev);
    const events = r.body.events as { event_type: string; actor_id: string; actor_type: string; data: any }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    return events.some((e) => e.event_type === type) ? events : undefined;
  });

const refund = (amount: number, over: Record<string, unknown> = {}, target?: string) => {
  const base = evidence({ ...(target ? { target } : {}) });
  return {
    ...base,
    ...over,
    args: { ...(base.args as object), amount, currency: 'usd', ...((over.args as object) ?? {}) },
  };
};

describe('a version 2 rule file over HTTP', () => {
  it('allows a small refund at creation: 201 approved by the rule, bound into the evidence, consumable', async () => {
    const r = await call('POST', '/v1/approvals', K.agent, refund(4000));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      status: 'approved',
      policy: { effect: 'allow', rule_id: 'small-refunds', decided_by: 'policy:small-refunds' },
    });
    const g = await gateIn(r.body.request_id, 'approved');
    expect(g.decision).toMatchObject({ decision: 'approve', reviewer_id: 'policy:small-refunds' });
    expect(g.payload.policy).toEqual({
      rule_id: 'small-refunds',
      effect: 'allow',
      policy_sha256: policySha,
      values: { 'args.amount': 4000, 'args.currency': 'usd' },
    });
    // The rule is part of what was approved: the payload hash covers it.
    expect(digest(g.payload)).toBe(r.body.payload_sha256);
    const events = await trailWith(r.body.request_id, 'approval.approved');
    expect(events.find((e) => e.event_type === 'approval.approved')).toMatchObject({
      actor_type: 'system',
      actor_id: 'policy:small-refunds',
    });
    expect((await call('POST', `/v1/approvals/${r.body.request_id}/consume`, K.agent)).status).toBe(200);
  });

  it('blocks a wide deploy at creation: 201 denied with the reason', async () => {
    const r = await call(
      'POST',
      '/v1/approvals',
      K.agent,
      evidence({ action: 'deploy.production', blast_radius: { services: 5 } }),
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'denied', policy: { effect: 'block', rule_id: 'wide-deploys' } });
    expect(r.body.policy.reason).toMatch(/Change freeze/);
    const g = await gateIn(r.body.request_id, 'denied');
    expect(g.status_reason).toMatch(/Change freeze/);
    expect(g.decision.reviewer_id).toBe('policy:wide-deploys');
  });

  it('asks two finance reviewers for a large refund (require), as the rule says', async () => {
    const r = await call('POST', '/v1/approvals', K.agent, refund(200000));
    expect(r.body).toMatchObject({ status: 'requested', policy: { effect: 'require', rule_id: 'large-refunds' } });
    const g = await gateIn(r.body.request_id, 'requested');
    expect(g.approvals_required).toBe(2);
    expect(g.payload.reviewer_policy).toMatchObject({ rule: 'large-refunds', roles: ['finance'] });
  });

  it('lets a block beat an earlier allow', async () => {
    const r = await call('POST', '/v1/approvals', K.agent, refund(100, { args: { customer: 'cus_frozen' } }));
    expect(r.body).toMatchObject({ status: 'denied', policy: { rule_id: 'frozen', decided_by: 'policy:frozen' } });
  });

  it('fails closed: a condition that errs blocks under a block rule and never allows under an allow rule', async () => {
    const deploy = await call(
      'POST',
      '/v1/approvals',
      K.agent,
      evidence({ action: 'deploy.production', blast_radius: { services: 'many' } }),
    );
    expect(deploy.body).toMatchObject({ status: 'denied', policy: { rule_id: 'wide-deploys' } });
    const g = await gateIn(deploy.body.request_id, 'denied');
    expect(g.payload.policy.error).toMatch(/overload|string/);
    // No currency: small-refunds cannot say yes, so the defaults ask a person.
    const noCurrency = evidence({ args: { amount: 100 } });
    const r = await call('POST', '/v1/approvals', K.agent, noCurrency);
    expect(r.body).toMatchObject({ status: 'requested', policy: { effect: 'require', rule_id: null } });
  });

  it('records shadow rules without enforcing them: policy.shadow events, and warnings for warn rules', async () => {
    const r = await call('POST', '/v1/approvals', K.agent, refund(60000, { args: { reason: 'fraud' } }));
    expect(r.status).toBe(201);
    // trial-large (audit) would block, fraud-next-week (warn) would block: neither does.
    expect(r.body.status).toBe('requested');
    expect(r.body.policy).toMatchObject({ effect: 'require', rule_id: 'trusted-refunds' });
    expect(r.body.warnings).toEqual([
      { rule_id: 'fraud-next-week', effect: 'block', message: expect.stringMatching(/fraud refunds will be blocked/) },
    ]);
    const events = await trailWith(r.body.request_id, 'policy.shadow');
    expect(
      events.filter((e) => e.event_type === 'policy.shadow').map((e) => [e.data.rule_id, e.data.mode, e.data.effect]),
    ).toEqual([
      ['trial-large', 'audit', 'block'],
      ['fraud-next-week', 'warn', 'block'],
    ]);
    await gateIn(r.body.request_id, 'requested');
  });

  it('explains a request for a reviewer: the outcome, each rule with its match and values, the file hash', async () => {
    const r = await call('POST', '/v1/policy/explain', K.rev, {
      action: 'stripe.refund.create',
      args: { amount: 4000, currency: 'usd', customer: 'cus_frozen' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ outcome: { effect: 'block', rule_id: 'frozen' }, policy_sha256: policySha });
    expect(r.body.rules[0]).toMatchObject({ rule_id: 'small-refunds', matched: true, decided: false });
    expect(r.body.rules[1]).toMatchObject({
      rule_id: 'frozen',
      decided: true,
      values: { 'args.customer': 'cus_frozen' },
    });
    expect((await call('POST', '/v1/policy/explain', K.agent, { action: 'x.y' })).status).toBe(403);
  });
});

describe('standing grants', () => {
  const grantsOf = async () => (await call('GET', '/v1/grants', K.rev)).body.grants as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any

  /** A pending refund on `target` approved by rev-1 with a standing grant. */
  async function granted(target: string, grant: Record<string, unknown>): Promise<string> {
    const r = await call('POST', '/v1/approvals', K.agent, refund(30000, {}, target));
    expect(r.body).toMatchObject({ status: 'requested', policy: { rule_id: 'trusted-refunds' } });
    const g = await gateIn(r.body.request_id, 'requested');
    const d = await call('POST', `/v1/approvals/${r.body.request_id}/decision`, K.rev, {
      decision: 'approve',
      payload_sha256: g.payload_sha256,
      grant,
    });
    expect(d.status).toBe(200);
    expect(d.body.status).toBe('approved');
    expect(d.body.grant).toMatchObject({ rule_id: 'trusted-refunds', target });
    return d.body.grant.grant_id;
  }

  it('is used by the next requests of the same agent, action and target, audited on both sides, until it runs out', async () => {
    const target = `ch_${randomUUID().slice(0, 8)}`;
    const id = await granted(target, { for: '30m', max_uses: 2 });
    expect((await grantsOf()).find((g) => g.grant_id === id)).toMatchObject({ status: 'active', uses: 0, max_uses: 2 });
    const uses = [];
    for (let i = 0; i < 2; i++) {
      const r = await call('POST', '/v1/approvals', K.agent, refund(25000, {}, target));
      expect(r.body).toMatchObject({ status: 'approved', policy: { decided_by: `grant:${id}`, grant_id: id } });
      uses.push(r.body.request_id as string);
    }
    const events = await trailWith(uses[0]!, 'grant.used');
    expect(events.find((e) => e.event_type === 'approval.approved')?.actor_id).toBe(`grant:${id}`);
    const chain = await audit.list(`grant:${id}`);
    expect(chain.map((e) => e.event_type)).toEqual(['grant.issued', 'grant.used', 'grant.used']);
    expect(chain.slice(1).map((e) => e.data.request_id)).toEqual(uses);
    // Used up: the third request asks a person again.
    const third = await call('POST', '/v1/approvals', K.agent, refund(25000, {}, target));
    expect(third.body.status).toBe('requested');
    expect((await grantsOf()).find((g) => g.grant_id === id)).toMatchObject({ status: 'exhausted', uses: 2 });
    // Another target is not covered.
    const other = await call('POST', '/v1/approvals', K.agent, refund(25000));
    expect(other.body.status).toBe('requested');
  });

  it('expires', async () => {
    const target = `ch_${randomUUID().slice(0, 8)}`;
    const id = await granted(target, { for: 2, max_uses: 2 });
    await new Promise((r) => setTimeout(r, 2500));
    const r = await call('POST', '/v1/approvals', K.agent, refund(25000, {}, target));
    expect(r.body.status).toBe('requested');
    expect((await grantsOf()).find((g) => g.grant_id === id)).toMatchObject({ status: 'expired', uses: 0 });
  });

  it('is revoked at once, audited on the grant', async () => {
    const target = `ch_${randomUUID().slice(0, 8)}`;
    const id = await granted(target, { for: '1h', max_uses: 2 });
    const del = await call('DELETE', `/v1/grants/${id}`, K.rev);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ revoked: true, grant: { status: 'revoked', revoked_by: 'rev-1' } });
    const r = await call('POST', '/v1/approvals', K.agent, refund(25000, {}, target));
    expect(r.body.status).toBe('requested');
    expect((await audit.list(`grant:${id}`)).map((e) => e.event_type)).toEqual(['grant.issued', 'grant.revoked']);
    expect((await call('DELETE', '/v1/grants/grt_000000000000000000000000', K.rev)).status).toBe(404);
  });

  it('needs the full quorum: one vote naming a grant of a two-approval rule gives none', async () => {
    const r = await call('POST', '/v1/approvals', K.agent, refund(200000));
    const g = await gateIn(r.body.request_id, 'requested');
    const vote = (key: string, grant?: unknown) =>
      call('POST', `/v1/approvals/${r.body.request_id}/decision`, key, {
        decision: 'approve',
        payload_sha256: g.payload_sha256,
        ...(grant ? { grant } : {}),
      });
    const first = await vote(K.fin1, { for: '1h', max_uses: 5 });
    expect(first.body).toMatchObject({ status: 'requested', approvals: 1 });
    expect(first.body.grant).toBeUndefined();
    const second = await vote(K.fin2);
    expect(second.body.status).toBe('approved');
    expect(second.body.grant).toBeUndefined();
    const events = await trailWith(r.body.request_id, 'approval.approved');
    expect(events.find((e) => e.event_type === 'approval.approved')?.data.grant_refused).toMatch(/full quorum/);
    expect((await grantsOf()).filter((x) => x.request_id === r.body.request_id)).toEqual([]);
  });

  it('refuses a grant beyond the rule bounds, or under a rule without grants (422)', async () => {
    const r = await call('POST', '/v1/approvals', K.agent, refund(30000));
    const g = await gateIn(r.body.request_id, 'requested');
    const d = (grant: unknown) =>
      call('POST', `/v1/approvals/${r.body.request_id}/decision`, K.rev, {
        decision: 'approve',
        payload_sha256: g.payload_sha256,
        grant,
      });
    expect((await d({ for: '2h', max_uses: 1 })).status).toBe(422);
    expect((await d({ for: '1h', max_uses: 3 })).status).toBe(422);
    expect((await d({ for: '1h', max_uses: 1, when: 'args.amount <' })).status).toBe(422);
    const plain = await call('POST', '/v1/approvals', K.agent, evidence({ action: 'user.delete' }));
    const p = await gateIn(plain.body.request_id, 'requested');
    const none = await call('POST', `/v1/approvals/${plain.body.request_id}/decision`, K.rev, {
      decision: 'approve',
      payload_sha256: p.payload_sha256,
      grant: { for: '1h', max_uses: 1 },
    });
    expect(none.status).toBe(422);
    expect(none.body.error.message).toMatch(/allows no standing grants/);
  });
});

describe('a version 2 rule file in an agent run', () => {
  const turns = (destination: string, budget: number, days = 5) => [
    { content: '', tool_calls: [{ id: 'c1', name: 'draft_trip_request', args: { destination, days, budget } }] },
    { content: '', tool_calls: [{ id: 'c2', name: 'validate_trip_request', args: {} }] },
    { content: '', tool_calls: [{ id: 'c3', name: 'submit_trip_request', args: {} }] },
    { content: 'done' },
  ];
  const runAudit = async (runId: string) => audit.list(runId);
  const submitResult = (v: {
    messages: { role: string; tool_call_id?: string; outcome?: string; content?: string }[];
  }) => v.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'c3');

  it('allow: the tool runs without a gate, the rule in the run trail', async () => {
    const runId = await startRun(client, runWorker.taskQueue, turns('Busan', 50000));
    const v = await waitForRun(client, runId, (r) => r.status === 'completed');
    expect(submitResult(v)).toMatchObject({ outcome: 'success' });
    const trail = await waitFor('policy.allowed in the run trail', async () => {
      const t = await runAudit(runId);
      return t.some((e) => e.event_type === 'policy.allowed' && e.data.tool === 'submit_trip_request') ? t : undefined;
    });
    expect(trail.find((e) => e.event_type === 'policy.allowed' && e.data.tool === 'submit_trip_request')).toMatchObject(
      { actor_id: 'policy:trip-steps', data: { rule_id: 'trip-steps', policy_sha256: policySha } },
    );
  });

  it('block: the call gets the result blocked with the rule reason, over the domain tier', async () => {
    const runId = await startRun(client, runWorker.taskQueue, turns('Busan', 3_000_000));
    const v = await waitForRun(client, runId, (r) => r.status === 'completed');
    expect(submitResult(v)).toMatchObject({ outcome: 'blocked' });
    expect(submitResult(v)?.content).toMatch(/over the company's trip ceiling \(rule trip-ceiling\)/);
    expect(v.pending_approvals).toEqual([]);
  });

  it('require: a call the domain allows goes through a gate the rule asks for, the domain tier in the evidence', async () => {
    const runId = await startRun(client, runWorker.taskQueue, turns('Tokyo', 50000));
    const requestId = await decidePending(client, runId, { decision: 'approve' });
    const v = await waitForRun(client, runId, (r) => r.status === 'completed');
    expect(submitResult(v)).toMatchObject({ outcome: 'success' });
    const g = await gateIn(requestId, 'consumed');
    expect(g.payload.policy).toMatchObject({ rule_id: 'trip-abroad', effect: 'require', domain_tier: 'allow' });
  });
});

describe('a version 2 rule file under requireApproval', () => {
  const start = (cents: number) =>
    client.workflow.start('refundWorkflow', {
      workflowId: `wf-${randomUUID()}`,
      taskQueue: libQueue,
      args: [{ order_id: `O-${cents}`, cents }],
    });

  it('allow: approved by the rule at once, and the refund runs', async () => {
    const result = await (await start(500)).result();
    expect(result.outcome).toMatchObject({ status: 'approved', decided_by: 'policy:wf-small', approvers: [] });
    expect(result.refunded).toMatch(/refunded 500 cents/);
  });

  it('block: denied by the rule with its reason', async () => {
    const result = await (await start(1_000_000)).result();
    expect(result.outcome).toMatchObject({
      status: 'denied',
      decided_by: 'policy:wf-too-large',
      reason: 'too large for a workflow refund',
    });
    expect(result.refunded).toBeUndefined();
  });

  it('require: a person decides, the rule recorded in the evidence', async () => {
    const h = await start(5000);
    const g = await gateIn(`${h.workflowId}-approval-1`, 'requested');
    expect(g.payload.policy).toMatchObject({ rule_id: null, effect: 'require', policy_sha256: policySha });
    const d = await call('POST', `/v1/approvals/${g.request_id}/decision`, K.rev, {
      decision: 'approve',
      payload_sha256: g.payload_sha256,
    });
    expect(d.status).toBe(200);
    expect((await h.result()).outcome).toMatchObject({ status: 'approved', decided_by: 'rev-1' });
  });
});

describe('gate policy replay', () => {
  it('judges the requests recorded above again under a new file and counts what changes per rule', async () => {
    const recorded = await audit.listByType('policy.evaluated', new Date(Date.now() - 3600_000).toISOString());
    expect(recorded.length).toBeGreaterThan(10);
    // The new file asks a person for every refund the old one allowed, and allows every deploy.
    const next = path.join(dir, 'next.yaml');
    fs.writeFileSync(
      next,
      [
        'version: 2',
        'defaults: { effect: require }',
        'rules:',
        '  - id: deploys-free',
        '    action: deploy.*',
        '    effect: allow',
        '',
      ].join('\n'),
    );
    const wasAllowed = recorded.filter((e) => e.data.effect === 'allow').length;
    const wasBlockedDeploys = recorded.filter(
      (e) => e.data.effect === 'block' && (e.data.request as { action: string }).action.startsWith('deploy.'),
    ).length;
    const wasBlockedOther = recorded.filter(
      (e) => e.data.effect === 'block' && !(e.data.request as { action: string }).action.startsWith('deploy.'),
    ).length;
    const out = await gate(['policy', 'replay', '--policy', next, '--since', '1h', '--json']);
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report.total).toBe(recorded.length);
    const line = (rule: string, was: string, would: string) =>
      report.lines.find(
        (l: { rule_id: string; was: string; would: string }) =>
          l.rule_id === rule && l.was === was && l.would === would,
      )?.requests ?? 0;
    expect(line('deploys-free', 'block', 'allow')).toBe(wasBlockedDeploys);
    expect(line('defaults', 'allow', 'require')).toBe(wasAllowed);
    expect(line('defaults', 'block', 'require')).toBe(wasBlockedOther);
    expect(report.changed).toBe(wasAllowed + wasBlockedDeploys + wasBlockedOther);
    const human = await gate(['policy', 'replay', '--policy', next, '--since', '1h']);
    expect(human.stdout).toMatch(/deploys-free\s+block\s+->\s+allow\s+\d+/);
  });

  it('gate policy explain asks the server for its file with a reviewer key', async () => {
    const req = path.join(dir, 'req.json');
    fs.writeFileSync(req, JSON.stringify({ action: 'deploy.production', blast_radius: { services: 9 } }));
    const out = await gate(['policy', 'explain', '--request', req, '--api-url', url, '--key', K.rev]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^outcome: block by rule wide-deploys \(Change freeze/);
    expect(out.stdout).toMatch(
      /wide-deploys\s+enforce\s+block\s+deploy\.production matched\s+true\s+\{"blast_radius\.services":9\}\s+<- decides/,
    );
    expect(out.stdout).toContain(policySha);
  });
});

function gate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const root = path.resolve(__dirname, '../..');
  const env = { ...process.env, GATE_DATA_DIR: dir, GATE_CLI_FROM_SOURCE: '1', GATE_DATABASE_URL: '' };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin', 'gate.js'), ...args],
      { cwd: root, env, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}
