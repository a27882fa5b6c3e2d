import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Client, Connection } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { createActivities } from '../../src/worker/activities';
import { createApiServer } from '../../src/api/server';
import { GateClient } from '../../src/client/gate-client';
import { PolicyFileError } from '../../src/policy/reviewer-policy';
import { tripDomain } from '../../examples/trip';
import { loadPolicyFile } from '../../src/policy/load-file';
import { AuditStore } from '../../src/store/audit-store';
import { openSqlite, type Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { createGateWorker } from '../../src/worker/create-gate-worker';
import { approvalGatePlugin } from '../../src/worker';
import { GATE_TENANT } from '../../src/workflow/gate/messages';
import * as libraryActivities from '../fixtures/library/activities';
import { startRun, waitForRun } from '../support/run-harness';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';
import { waitFor } from '../support/wait';
import { apiCall, type ApiResponse } from '../support/http';

/**
 * GATE_POLICY_FILE applies to every gate, whatever opens it: the API's creates, an agent
 * run's tool gates and `requireApproval`/`withApproval` gates of a user's workflow. The
 * workers load the same file the API does; each gate's evidence names the rule and the
 * file's hash. Workflow gates belong to a tenant (the option, or the calling workflow's own).
 */

const RULES = [
  'version: 1',
  'rules:',
  '  - action: refund.*',
  '    roles: [finance]',
  '    min_approvals: 2',
  '  - action: trip.*',
  '    roles: [finance]',
  '    min_approvals: 2',
  '',
].join('\n');

let dir: string;
let db: Db;
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
const K = { fin1: '', fin2: '', support: '', otherFinance: '', otherAgent: '' };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-wf-rules-'));
  const policyFile = path.join(dir, 'rules.yaml');
  fs.writeFileSync(policyFile, RULES);
  const policy = loadPolicyFile(policyFile);
  policySha = policy.sha256;
  db = openSqlite(path.join(dir, 'gate.db'));
  // The gate worker of agent runs, with the activities createGateWorker builds from GATE_POLICY_FILE.
  const { activities } = await createActivities({ db, domains: [tripDomain], policy });
  runWorker = await startTestWorker(activities);
  // A user's worker hosting its own workflows and their gates through the plugin, reading the same file.
  libQueue = `wf-rules-${randomUUID()}`;
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
  const audit = new AuditStore(db);
  const keys = new KeyStore(db);
  await keys.migrate();
  const gate = new GateClient(client, { taskQueue: runWorker.taskQueue, audit, webhookReceivers: 0, policy });
  app = createApiServer({ gate, keys, audit, temporal: client });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  K.fin1 = (await keys.create('reviewer', 'fin-1', { tenant: 'acme', roles: ['finance'] })).key;
  K.fin2 = (await keys.create('reviewer', 'fin-2', { tenant: 'acme', roles: ['finance'] })).key;
  K.support = (await keys.create('reviewer', 'sup-1', { tenant: 'acme', roles: ['support'] })).key;
  K.otherFinance = (await keys.create('reviewer', 'globex-fin', { tenant: 'globex', roles: ['finance'] })).key;
  K.otherAgent = (await keys.create('agent', 'refundWorkflow', { tenant: 'globex' })).key;
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

/** The pending gate as acme's finance reviewer sees it, once its first task has run. */
const pending = (id: string) =>
  waitFor('the gate requested', async () => {
    const r = await call('GET', `/v1/approvals/${id}`, K.fin1);
    return r.status === 200 && r.body.status === 'requested' && !r.body.stale ? r.body : undefined;
  });

/**
 * What every gate under the `finance` rule must show: the rule and the file's hash in its
 * evidence and first audit event; another tenant's keys get 404; an ineligible reviewer of
 * the tenant gets 403 with the roles and is audited; two distinct finance reviewers approve it.
 */
async function expectFinanceQuorum(id: string, rule: string): Promise<void> {
  const g = await pending(id);
  const requirement = { rule, roles: ['finance'], approvals_required: 2, policy_sha256: policySha };
  expect(g.payload.reviewer_policy).toEqual(requirement);
  expect(g.approvals_required).toBe(2);
  const trail = await call('GET', `/v1/approvals/${id}/audit`, K.fin1);
  const requested = trail.body.events.find((e: { event_type: string }) => e.event_type === 'approval.requested');
  expect(requested.data.reviewer_policy).toEqual(requirement);

  // Acme's queue lists it; globex's keys neither list nor reach it.
  await waitFor("the gate in acme's queue", async () => {
    const r = await call('GET', '/v1/approvals?status=requested&limit=500', K.fin1);
    return r.body.approvals.some((a: { request_id: string }) => a.request_id === id) ? true : undefined;
  });
  const globexList = await call('GET', '/v1/approvals?status=requested&limit=500', K.otherFinance);
  expect(globexList.body.approvals.some((a: { request_id: string }) => a.request_id === id)).toBe(false);
  for (const key of [K.otherFinance, K.otherAgent]) {
    const r = await call('GET', `/v1/approvals/${id}`, key);
    expect(r.status).toBe(404);
  }
  const vote = (sha: string) => ({ decision: 'approve', payload_sha256: sha, args_sha256: g.final_args_sha256 });
  expect((await call('POST', `/v1/approvals/${id}/decision`, K.otherFinance, vote(g.payload_sha256))).status).toBe(404);

  const refused = await call('POST', `/v1/approvals/${id}/decision`, K.support, vote(g.payload_sha256));
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ code: 'ineligible_reviewer', details: { roles_needed: ['finance'] } });
  const first = await call('POST', `/v1/approvals/${id}/decision`, K.fin1, vote(g.payload_sha256));
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ status: 'requested', approvals: 1, approvals_required: 2 });
  const again = await call('POST', `/v1/approvals/${id}/decision`, K.fin1, vote(g.payload_sha256));
  expect(again.status).toBe(409); // the same reviewer twice counts once (DuplicateReviewer)
  const second = await call('POST', `/v1/approvals/${id}/decision`, K.fin2, vote(g.payload_sha256));
  expect(second.status).toBe(200);
  expect(second.body).toMatchObject({ status: 'approved', approvals: 2 });

  const events = await waitFor('two refused decisions in the trail', async () => {
    const a = await call('GET', `/v1/approvals/${id}/audit`, K.fin1);
    const ev = a.body.events as { event_type: string; actor_id: string; data: { refusal?: string } }[];
    return ev.filter((e) => e.event_type === 'decision.refused').length >= 2 ? ev : undefined;
  });
  expect(events.filter((e) => e.event_type === 'decision.refused').map((e) => [e.actor_id, e.data.refusal])).toEqual([
    ['sup-1', 'IneligibleReviewer'],
    ['fin-1', 'DuplicateReviewer'],
  ]);
}

describe('GATE_POLICY_FILE on gates that workflows open', () => {
  it('an agent run in tenant acme opens its tool gate under the finance rule, two finance approvals run it', async () => {
    const runId = await startRun(
      client,
      runWorker.taskQueue,
      [
        {
          content: '',
          tool_calls: [
            { id: 'c1', name: 'draft_trip_request', args: { destination: 'Busan', days: 2, budget: 800000 } },
          ],
        },
        { content: '', tool_calls: [{ id: 'c2', name: 'validate_trip_request', args: {} }] },
        { content: '', tool_calls: [{ id: 'c3', name: 'submit_trip_request', args: {} }] },
        { content: 'Submitted.' },
      ],
      { tenant: 'acme', agent_id: 'acme-bot' },
    );
    const v = await waitForRun(client, runId, (r) => r.pending_approvals.length > 0);
    await expectFinanceQuorum(v.pending_approvals[0]!.request_id, 'trip.*');
    const done = await waitForRun(client, runId, (r) => r.status === 'completed');
    expect(done.status).toBe('completed');
  });

  it('requireApproval with the tenant option follows the refund rule and returns both approvers', async () => {
    const h = await client.workflow.start('refundWorkflow', {
      workflowId: `wf-${randomUUID()}`,
      taskQueue: libQueue,
      args: [{ order_id: 'R1', cents: 5000, tenant: 'acme' }],
    });
    await expectFinanceQuorum(`${h.workflowId}-approval-1`, 'refund.*');
    const result = await h.result();
    expect(result.outcome).toMatchObject({ status: 'approved', approvers: ['fin-1', 'fin-2'] });
    expect(result.refunded).toBeDefined();
  });

  it('withApproval takes the calling workflow own tenant when given none', async () => {
    const h = await client.workflow.start('gatedRefundWorkflow', {
      workflowId: `wf-${randomUUID()}`,
      taskQueue: libQueue,
      args: [{ order_id: 'R2', cents: 7000 }],
      typedSearchAttributes: [{ key: GATE_TENANT, value: 'acme' }],
    });
    await expectFinanceQuorum(`${h.workflowId}-approval-1`, 'refund.*');
    expect(await h.result()).toMatchObject({ status: 'executed', decided_by: 'fin-2' });
  });

  it('fails requireApproval with InvalidInput, before any gate opens, when it asks for roles outside the rule', async () => {
    const h = await client.workflow.start('refundWorkflow', {
      workflowId: `wf-${randomUUID()}`,
      taskQueue: libQueue,
      args: [{ order_id: 'R3', cents: 100, tenant: 'acme', reviewer_roles: ['support'] }],
    });
    const err = await h.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toMatchObject({
      type: 'InvalidInput',
      message: expect.stringMatching(/reviewer_roles support are not allowed to decide refund.create/),
    });
    const gate = await client.workflow
      .getHandle(`${h.workflowId}-approval-1`)
      .describe()
      .catch((e: unknown) => e);
    expect(gate).toBeInstanceOf(Error); // never started
  });

  it('a request may narrow the roles and raise the approvals, never lower them', async () => {
    // refund.* asks 2 finance approvals; the request asks for 1 and names finance: still 2.
    const h = await client.workflow.start('refundWorkflow', {
      workflowId: `wf-${randomUUID()}`,
      taskQueue: libQueue,
      args: [{ order_id: 'R4', cents: 100, tenant: 'acme', reviewer_roles: ['finance'] }],
    });
    const g = await pending(`${h.workflowId}-approval-1`);
    expect(g.payload.reviewer_policy).toMatchObject({ roles: ['finance'], approvals_required: 2 });
    await h.cancel();
  });

  it('refuses to build a gate worker on a bad rule file, naming the problem, before it connects anywhere', async () => {
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'rules:\n  - action: refund.*\n    roles: []\n');
    const err = await createGateWorker({ domains: [], policyFile: bad, dataDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PolicyFileError);
    expect((err as Error).message).toMatch(/rules\[0\]\.roles/);
    expect(() => approvalGatePlugin({ db, policyFile: bad })).toThrow(/rules\[0\]\.roles/);
  });
});
