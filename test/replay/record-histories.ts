/**
 * Records the histories the replay tests replay: approvalGate paths driven directly
 * (`approval-gate.replay.test.ts`, files in `histories/`) and agentRun paths with their
 * child gates, on every real activity (`agent-run.replay.test.ts`, `histories/agent-run/`).
 *
 *   .tools/temporal/bin/temporal server start-dev --headless --port 7299 \
 *     --search-attribute GateStatus=Keyword --search-attribute GateAction=Keyword \
 *     --search-attribute GateAgent=Keyword --search-attribute GateTarget=Keyword \
 *     --search-attribute GateRunId=Keyword --search-attribute GateRunStatus=Keyword \
 *     --search-attribute GateTenant=Keyword &
 *   TEMPORAL_ADDRESS=127.0.0.1:7299 npx tsx test/replay/record-histories.ts [gate] [agent-run] [workflow]
 *
 * With no argument every set is recorded (`workflow`, the user workflows of
 * test/fixtures/library and their gates, since v7), into the newest version of HISTORY_VERSIONS
 * (history-codec.ts), which must not be recorded yet. Recorded sets are never re-recorded
 * or edited: a workflow change adds a version; the checked-in sets are what guard the
 * deployed code's determinism.
 */
import { evaluatePolicy } from '../../src/worker/activities/policy';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { GateActivities } from '../../src/worker/activities/contracts';
import type { DecisionMessage } from '../../src/common/decision';
import { EvidencePayload, payloadSha256, requestIdFor } from '../../src/common/evidence';
import type { ReviewerRequirement } from '../../src/policy/reviewer-policy';
import type { GateInput, GateState } from '../../src/common/gate-state';
import type { ScriptedTurn } from '../../src/common/model-spec';
// Type only: the replay test imports this file for the codec and must not load workflow code.
import type { approvalGateWorkflow } from '../../src/workflow/bundle-entry';
import {
  CALLER_WRITES,
  CALLER_WRITES_RECORDED,
  consumeUpdate,
  decideSignal,
  decideUpdate,
  GATE_TENANT,
  getAuditQuery,
  getGateQuery,
} from '../../src/workflow/gate/messages';
import { CURRENT_PATCH_BASELINE } from '../../src/workflow/gate/patch-baseline';
import { getRunQuery, respondInteractionUpdate, type RunStatus } from '../../src/workflow/agent-run/messages';
import type * as Harness from '../support/run-harness';
import {
  encodeHistory,
  gateHistoriesDir,
  HISTORY_VERSIONS,
  runHistoriesDir,
  WORKFLOW_SET_VERSIONS,
  workflowHistoriesDir,
  type History,
  type HistoryVersion,
} from './history-codec';

const AGENT = 'agent_billing';

/** Activities that succeed without side effects: the histories record the workflow, not a store. */
const activities: GateActivities = {
  async recordAuditEvent() {},
  async recordAuditEvents() {
    return { webhook_receivers: 1 }; // so the gate set shows the webhook path too
  },
  async deliverWebhooks() {
    return { delivered: [] };
  },
  async recheckSnapshot() {
    return { ok: true };
  },
  async executeTool() {
    return { content: 'done' };
  },
  async recheckAndExecuteTool() {
    return { ran: true, output: { content: 'done' } };
  },
  async reviseToolCall() {
    return { ok: false, issues: [{ path: '', message: 'not used in these histories' }] };
  },
  async resolveReviewers({ approvals_required }) {
    return { approvals_required }; // the gate set starts its gates itself, with the rule already applied
  },
  evaluatePolicy: (input) => evaluatePolicy({}, input), // no rule file
};

/** A valid gate input for the external executor, expiring `ttlSeconds` from now. */
function gateInput(scenario: string, ttlSeconds: number): GateInput {
  const idempotency_key = `replay-${scenario}-${randomUUID()}`;
  const payload = EvidencePayload.parse({
    request_id: requestIdFor(AGENT, idempotency_key),
    correlation_id: `corr_${scenario}`,
    agent_id: AGENT,
    trigger_event_id: `ticket_${scenario}`,
    action: 'stripe.refund.create',
    target: 'ch_3MvICBLkdIwHu7ix0Yx87a11',
    summary: `Full refund for damaged shipment (${scenario})`,
    blast_radius: { currency: 'usd', amount_cents: 14500 },
    args: { charge: 'ch_3MvICBLkdIwHu7ix0Yx87a11', amount: 14500, reason: 'requested_by_customer' },
    preconditions: { account_status: 'active' },
    idempotency_key,
    expires_at: new Date(Date.now() + ttlSeconds * 1000).toISOString(),
  });
  const sha = payloadSha256(payload);
  return {
    payload,
    payload_sha256: sha,
    approvals_required: 1,
    executor: 'external',
    consume_ttl_seconds: 600,
    create_sha256: sha,
    // Since v4: the creator wrote approval.requested to the store (GateClient with an audit store).
    // Since v9: with the creator's audit intent recorded first (the gate does not send the event again).
    requested_event: {
      event_id: `evt_${randomUUID()}`,
      timestamp: new Date().toISOString(),
      ...(since('v9') ? { recorded: true as const } : {}),
    },
    // Since v12: the creator declares the patch baseline (no marker in the gate's history).
    ...(since('v12') ? { patch_baseline: CURRENT_PATCH_BASELINE } : {}),
  };
}

function decision(input: GateInput, over: Partial<DecisionMessage>): DecisionMessage {
  return {
    decision_id: `dec_${randomUUID()}`,
    reviewer_id: 'reviewer_alice',
    decision: 'approve',
    payload_sha256: input.payload_sha256,
    ...over,
  };
}

type Scenario = (client: Client, taskQueue: string) => Promise<WorkflowHandle<typeof approvalGateWorkflow>>;

/** Starts a gate; the workflow type name is frozen (it is in every recorded history). */
function startGate(
  client: Client,
  taskQueue: string,
  input: GateInput,
): Promise<WorkflowHandle<typeof approvalGateWorkflow>> {
  return client.workflow.start<typeof approvalGateWorkflow>('approvalGateWorkflow', {
    taskQueue,
    workflowId: input.payload.request_id,
    args: [input],
  });
}

const scenarios: Record<string, Scenario> = {
  /** Approved by update, then consumed once by the requesting agent. */
  'approve-consume': async (client, taskQueue) => {
    const input = gateInput('approve-consume', 3600);
    const handle = await startGate(client, taskQueue, input);
    // Since v6: the updates' caller writes their events (GateClient with an audit store), see CallerWrites.
    // Since v9: with the caller's audit intents recorded first (CALLER_WRITES_RECORDED).
    const w = since('v9') ? CALLER_WRITES_RECORDED : since('v6') ? CALLER_WRITES : undefined;
    await handle.executeUpdate(decideUpdate, { args: [decision(input, { note: 'matches the ticket' }), w] });
    await handle.executeUpdate(consumeUpdate, { args: [{ consumer_id: AGENT }, w] });
    return handle;
  },
  /** Denied by a signal, the path any service can use. */
  'reject-signal': async (client, taskQueue) => {
    const input = gateInput('reject-signal', 3600);
    const handle = await startGate(client, taskQueue, input);
    await handle.signal(
      decideSignal,
      decision(input, { decision: 'reject', reason: 'the charge was already refunded' }),
    );
    return handle;
  },
  /** No decision before a 2-second TTL: fails closed. */
  'ttl-expiry': async (client, taskQueue) => {
    const input = gateInput('ttl-expiry', 2);
    return startGate(client, taskQueue, input);
  },
};

/**
 * Since v5: a gate flooded with bad signals past a small history limit continues as new,
 * then is approved and consumed. Every execution is saved (`flood-continue.<n>.json`,
 * oldest first): each one replays on its own, the later ones from their carried input.
 */
async function recordFloodContinue(client: Client, taskQueue: string, dir: string): Promise<void> {
  const input: GateInput = { ...gateInput('flood-continue', 3600), max_history_events: 60 };
  const handle = await startGate(client, taskQueue, input);
  for (let i = 0; i < 90; i++)
    await handle.signal(decideSignal, decision(input, { decision_id: `bad_${i}`, payload_sha256: '0'.repeat(64) }));
  await handle.executeUpdate(decideUpdate, { args: [decision(input, {})] });
  await handle.executeUpdate(consumeUpdate, { args: [{ consumer_id: AGENT }] });
  const state = await handle.result();
  const runs: string[] = [];
  for await (const e of client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs.unshift(e.runId);
  if (runs.length < 2)
    throw new Error(`flood-continue: expected the gate to continue as new, got ${runs.length} execution`);
  for (const [i, runId] of runs.entries()) {
    const history = await client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
    save(dir, `flood-continue.${i + 1}.json`, history, i === runs.length - 1 ? state.status : 'continued as new');
  }
}

/** The rule an API with a rule file binds into a stripe refund's evidence (reviewer-roles-v1). */
const FINANCE_RULE: ReviewerRequirement = {
  rule: 'stripe.refund.*',
  roles: ['finance'],
  approvals_required: 2,
  policy_sha256: 'c'.repeat(64),
};

/** Two votes from two people with a role, a decision each. */
const roleVote = (sha: string, argsSha: string, reviewer: string, roles: string[]): DecisionMessage => ({
  decision_id: `dec_${randomUUID()}`,
  reviewer_id: reviewer,
  reviewer_roles: roles,
  decision: 'approve',
  payload_sha256: sha,
  args_sha256: argsSha,
});

/** Refuses unless the gate audited the ineligible vote (a recording that went elsewhere is refused). */
async function expectIneligibleAudited(handle: WorkflowHandle, reviewer: string): Promise<void> {
  const events = await handle.query(getAuditQuery);
  const refused = events.find((e) => e.event_type === 'decision.refused' && e.actor_id === reviewer);
  if ((refused?.data as { refusal?: string } | undefined)?.refusal !== 'IneligibleReviewer')
    throw new Error(`${handle.workflowId}: the vote of ${reviewer} was not refused as IneligibleReviewer`);
}

/**
 * Since v7: a gate whose evidence names reviewer roles (reviewer-roles-v1): a signalled vote
 * without the role is refused and audited, two finance reviewers reach the quorum, the agent consumes.
 */
async function recordReviewerRoles(client: Client, taskQueue: string, dir: string): Promise<void> {
  const base = gateInput('reviewer-roles', 3600);
  const payload = EvidencePayload.parse({ ...base.payload, reviewer_policy: FINANCE_RULE });
  const sha = payloadSha256(payload);
  const input: GateInput = { ...base, payload, payload_sha256: sha, create_sha256: sha, approvals_required: 2 };
  const handle = await startGate(client, taskQueue, input);
  const argsSha = (await handle.query(getGateQuery)).final_args_sha256;
  // Decided as the API decides (its GateClient writes the updates' events, CallerWrites); the refusal comes by signal.
  await handle.signal(decideSignal, roleVote(sha, argsSha, 'reviewer_support', ['support']));
  const vote = (reviewer: string, roles: string[]) => ({
    args: [roleVote(sha, argsSha, reviewer, roles), CALLER_WRITES] as [DecisionMessage, typeof CALLER_WRITES],
  });
  await handle.executeUpdate(decideUpdate, vote('reviewer_alice', ['finance']));
  await handle.executeUpdate(decideUpdate, vote('reviewer_bob', ['finance', 'ops']));
  await handle.executeUpdate(consumeUpdate, { args: [{ consumer_id: AGENT }, CALLER_WRITES] });
  const state = await handle.result();
  await expectIneligibleAudited(handle, 'reviewer_support');
  if (state.status !== 'consumed' || state.votes.length !== 2)
    throw new Error(`reviewer-roles: ended ${state.status} with ${state.votes.length} votes; expected consumed with 2`);
  save(dir, 'reviewer-roles.json', await handle.fetchHistory(), state.status);
}

async function recordGatePaths(client: Client, taskQueue: string): Promise<void> {
  const dir = gateHistoriesDir(recording);
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, scenario] of Object.entries(scenarios)) {
    const handle = await scenario(client, taskQueue);
    const state = await handle.result();
    const history = await handle.fetchHistory();
    save(dir, `${name}.json`, history, state.status);
  }
  if (since('v5')) await recordFloodContinue(client, taskQueue, dir);
  if (since('v7')) await recordReviewerRoles(client, taskQueue, dir);
}

/* ---- agentRun paths: a scripted model, every real activity, child gates decided by update ---- */

/** Workflow type names are frozen: they are in every recorded history and file name. */
export const RUN_TYPE = 'agentRunWorkflow';
export const GATE_TYPE = 'approvalGateWorkflow';

interface RunPath {
  turns: ScriptedTurn[];
  /** Moves the started run to its end: a decision, an answer or a cancellation. */
  drive(h: typeof Harness, client: Client, runId: string): Promise<unknown>;
  /** Where the run and its child gate must end; a recording that went elsewhere is refused. */
  expect: { run: RunStatus; gate?: GateState['status'] };
  /** The first version that records this path (v1 when absent). */
  since?: HistoryVersion;
  /** The worker's rule file (GATE_POLICY_FILE) while this path is recorded; none when absent. */
  rules?: string;
}

/** The versions that hold a recording of `p`. */
export function pathVersions(p: { since?: HistoryVersion }): HistoryVersion[] {
  return HISTORY_VERSIONS.slice(HISTORY_VERSIONS.indexOf(p.since ?? 'v1'));
}

/** Draft 2 days in Busan at 800,000 KRW (above the approval threshold), then validate. */
const DRAFT: ScriptedTurn[] = [
  {
    content: '',
    tool_calls: [{ id: 'c1', name: 'draft_trip_request', args: { destination: 'Busan', days: 2, budget: 800000 } }],
  },
  { content: '', tool_calls: [{ id: 'c2', name: 'validate_trip_request', args: {} }] },
];
const submit = (id: string): ScriptedTurn => ({
  content: '',
  tool_calls: [{ id, name: 'submit_trip_request', args: {} }],
});

export const RUN_PATHS: Record<string, RunPath> = {
  /** Submit waits for a gate; approved, the gate runs the tool; the model reports the result. */
  'trip-approve': {
    turns: [...DRAFT, submit('c3'), { content: 'Submitted, budget {{value:c3.budget}} KRW.' }],
    drive: (h, client, runId) => h.decidePending(client, runId, { decision: 'approve' }),
    expect: { run: 'completed', gate: 'consumed' },
  },
  /** Modified to 500,000: the gate calls the reviser, signals argsFinalized to the run, then runs the tool. */
  'trip-modify': {
    turns: [...DRAFT, submit('c3'), { content: 'Submitted, budget {{value:c3.budget}} KRW.' }],
    drive: (h, client, runId) => h.decidePending(client, runId, { decision: 'modify', args: { budget: 500000 } }),
    expect: { run: 'completed', gate: 'consumed' },
  },
  /** Rejected with a reason; the model retries the same call, which is blocked without a second gate. */
  'trip-reject': {
    turns: [...DRAFT, submit('c3'), submit('c4'), { content: 'Not submitted. {{result:c3}}' }],
    drive: (h, client, runId) =>
      h.decidePending(client, runId, { decision: 'reject', reason: 'the quarterly budget is used up' }),
    expect: { run: 'completed', gate: 'denied' },
  },
  /** One turn with a read-only call and a gated one: the barrier waits for both. */
  'trip-batch': {
    turns: [
      ...DRAFT,
      {
        content: '',
        tool_calls: [
          { id: 's1', name: 'search_trip_policy', args: { query: 'approvals' } },
          { id: 's2', name: 'submit_trip_request', args: {} },
        ],
      },
      { content: 'Submitted, budget {{value:s2.budget}} KRW.' },
    ],
    drive: (h, client, runId) => h.decidePending(client, runId, { decision: 'approve' }),
    expect: { run: 'completed', gate: 'consumed' },
  },
  /** ask_user: the run waits for an answer, which arrives by the respondInteraction update. */
  'ask-user': {
    turns: [
      {
        content: '',
        tool_calls: [
          {
            id: 'a1',
            name: 'ask_user',
            args: {
              type: 'SELECT',
              target: 'destination',
              prompt: 'Where to?',
              options: ['Busan', 'Jeju'],
              required: true,
            },
          },
        ],
      },
      { content: 'You chose {{value:a1.value}}' },
    ],
    drive: async (h, client, runId) => {
      const v = await h.waitForRun(client, runId, (r) => r.pending_interactions.length > 0);
      await client.workflow.getHandle(runId).executeUpdate(respondInteractionUpdate, {
        args: [v.pending_interactions[0]!.id, { value: 'Jeju', responder_id: 'user-1' }],
      });
    },
    expect: { run: 'completed' },
  },
  /**
   * Since v7: the worker's rule file asks two `finance` approvals for trip.*. The run's
   * gate carries the rule in its evidence; a vote without the role is refused and audited.
   */
  'trip-roles': {
    since: 'v7',
    rules: 'rules:\n  - action: trip.*\n    roles: [finance]\n    min_approvals: 2\n',
    turns: [...DRAFT, submit('c3'), { content: 'Submitted, budget {{value:c3.budget}} KRW.' }],
    drive: async (h, client, runId) => {
      const v = await h.waitForRun(client, runId, (r) => r.pending_approvals.length > 0);
      const gate = client.workflow.getHandle(v.pending_approvals[0]!.request_id);
      await voteAsFinance(gate, 'rev-support');
    },
    expect: { run: 'completed', gate: 'consumed' },
  },
  /**
   * The run is cancelled while its gate waits: the gate records `approval.cancelled` and
   * completes with its state (audit writes are non-cancellable), then the run closes as
   * Canceled after writing `run.cancelled`.
   */
  'run-cancel': {
    turns: [...DRAFT, submit('c3'), { content: 'end' }],
    drive: async (h, client, runId) => {
      await h.waitForRun(client, runId, (r) => r.pending_approvals.length > 0);
      await client.workflow.getHandle(runId).cancel();
    },
    expect: { run: 'cancelled', gate: 'cancelled' },
  },
};

/** An ineligible vote by signal (refused and audited), then two finance approvals by update. */
async function voteAsFinance(gate: WorkflowHandle, ineligible: string): Promise<void> {
  const state = await gate.query(getGateQuery);
  if (state.payload.reviewer_policy?.roles[0] !== 'finance')
    throw new Error(`${gate.workflowId}: the gate's evidence names no finance rule`);
  const vote = (reviewer: string, roles: string[]) =>
    roleVote(state.payload_sha256, state.final_args_sha256, reviewer, roles);
  await gate.signal(decideSignal, vote(ineligible, ['support']));
  await gate.executeUpdate(decideUpdate, { args: [vote('rev-fin-1', ['finance'])] });
  await gate.executeUpdate(decideUpdate, { args: [vote('rev-fin-2', ['finance'])] });
  await expectIneligibleAudited(gate, ineligible);
}

/** Ids of the child gates a run started, in order, from its history. */
export function childGateIds(history: History): string[] {
  return (history.events ?? []).flatMap((e) => {
    const a = e.startChildWorkflowExecutionInitiatedEventAttributes;
    return a?.workflowType?.name === GATE_TYPE && a.workflowId ? [a.workflowId] : [];
  });
}

/** Runs one path to its end and saves the run's history and its child gate's. */
async function recordRunPath(
  h: typeof Harness,
  client: Client,
  taskQueue: string,
  name: string,
  p: RunPath,
): Promise<void> {
  const runId = await h.startRun(client, taskQueue, p.turns);
  await p.drive(h, client, runId);
  const run = client.workflow.getHandle(runId);
  await run.result().catch(() => undefined); // a cancelled run ends with a CancelledFailure; the status check below decides
  const view = await run.query(getRunQuery);
  const history = await run.fetchHistory();
  const gates = childGateIds(history);
  if (view.status !== p.expect.run || gates.length !== (p.expect.gate ? 1 : 0)) {
    throw new Error(
      `${name}: run ended ${view.status} with ${gates.length} gate(s); expected ${p.expect.run} with ${p.expect.gate ? 1 : 0}`,
    );
  }
  save(runHistoriesDir(recording), `${name}.${RUN_TYPE}.json`, history, view.status);
  for (const id of gates) {
    const gate = client.workflow.getHandle<typeof approvalGateWorkflow>(id);
    await gate.result().catch(() => undefined); // the status check below decides
    const state = await gate.query(getGateQuery);
    if (state.status !== p.expect.gate)
      throw new Error(`${name}: gate ${id} ended ${state.status}; expected ${p.expect.gate}`);
    save(runHistoriesDir(recording), `${name}.${GATE_TYPE}.json`, await gate.fetchHistory(), state.status);
  }
}

async function recordRunPaths(nativeConnection: NativeConnection, client: Client): Promise<void> {
  // Loaded here, not at the top: the replay tests import this file and need none of it.
  const { createActivities } = await import('../../src/worker/activities');
  const { parsePolicyText } = await import('../../src/policy/parse');
  const { openSqlite } = await import('../../src/store/db');
  const { tripDomain } = await import('../../examples/trip');
  const h = await import('../support/run-harness');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-replay-record-'));
  const db = openSqlite(path.join(dir, 'gate.db'));
  try {
    fs.mkdirSync(runHistoriesDir(recording), { recursive: true });
    const paths = Object.entries(RUN_PATHS).filter(([, p]) => pathVersions(p).includes(recording));
    // One worker per rule file (none for most paths), so each path sees exactly the rules it names.
    for (const rules of [...new Set(paths.map(([, p]) => p.rules))]) {
      const policy = rules === undefined ? undefined : parsePolicyText(rules, 'rules.yaml');
      const { activities: real } = await createActivities({ db, domains: [tripDomain], policy });
      await withWorker(nativeConnection, real, async (taskQueue) => {
        for (const [name, p] of paths) if (p.rules === rules) await recordRunPath(h, client, taskQueue, name, p);
      });
    }
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/* ---- user workflows (test/fixtures/library) that open gates with the workflow API, since v7 ---- */

/** The fixture's rule file: two finance approvals for refunds. */
const REFUND_RULES = 'rules:\n  - action: refund.*\n    roles: [finance]\n    min_approvals: 2\n';

interface WorkflowPath {
  /** The fixture workflow's type (frozen: it is in the file name and the history). */
  type: string;
  args: Record<string, unknown>;
  /** The parent's own GateTenant, which its gates inherit when the call names no tenant. */
  tenant?: string;
}

export const WORKFLOW_PATHS: Record<string, WorkflowPath> = {
  /** requireApproval with `tenant: 'acme'` under the refund rule: an ineligible vote, two finance approvals. */
  'require-approval-tenant': { type: 'refundWorkflow', args: { order_id: 'R1', cents: 5000, tenant: 'acme' } },
  /** withApproval in a workflow started with GateTenant=acme: the gate inherits it; recheck, then the activity. */
  'with-approval-inherited': { type: 'gatedRefundWorkflow', args: { order_id: 'R2', cents: 7000 }, tenant: 'acme' },
};

async function recordWorkflowPaths(nativeConnection: NativeConnection, client: Client): Promise<void> {
  const { openSqlite } = await import('../../src/store/db');
  const { approvalGatePlugin } = await import('../../src/worker');
  const libraryActivities = await import('../fixtures/library/activities');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-replay-record-wf-'));
  const db = openSqlite(path.join(dir, 'gate.db'));
  const policyFile = path.join(dir, 'rules.yaml');
  fs.writeFileSync(policyFile, REFUND_RULES);
  const out = workflowHistoriesDir(recording);
  fs.mkdirSync(out, { recursive: true });
  try {
    const taskQueue = `replay-record-wf-${randomUUID()}`;
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../fixtures/library/workflows'),
      activities: { ...libraryActivities },
      plugins: [approvalGatePlugin({ db, webhookUrls: [], policyFile })],
    });
    await worker.runUntil(async () => {
      for (const [name, p] of Object.entries(WORKFLOW_PATHS)) {
        const parent = await client.workflow.start(p.type, {
          workflowId: `replay-${name}-${randomUUID()}`,
          taskQueue,
          args: [p.args],
          ...(p.tenant ? { typedSearchAttributes: [{ key: GATE_TENANT, value: p.tenant }] } : {}),
        });
        const gate = client.workflow.getHandle(`${parent.workflowId}-approval-1`);
        await waitUntilRunning(gate);
        await voteAsFinance(gate, 'rev-support');
        const result = (await parent.result()) as { status?: string; outcome?: { status: string } };
        const status = result.outcome?.status ?? result.status ?? 'unknown';
        if (status !== 'approved' && status !== 'executed')
          throw new Error(`${name}: the workflow ended ${status}; expected approved or executed`);
        const described = await gate.describe();
        if (described.typedSearchAttributes.get(GATE_TENANT) !== 'acme')
          throw new Error(`${name}: the gate is not in tenant acme`);
        save(out, `${name}.${p.type}.json`, await parent.fetchHistory(), status);
        save(out, `${name}.${GATE_TYPE}.json`, await gate.fetchHistory(), (await gate.query(getGateQuery)).status);
      }
    });
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Polls until the gate has run its first task (its query answers). */
async function waitUntilRunning(gate: WorkflowHandle): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (
      await gate.query(getGateQuery).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gate ${gate.workflowId} never started`);
}

function save(dir: string, file: string, history: History, status: string): void {
  const target = path.join(dir, file);
  fs.writeFileSync(target, encodeHistory(history));
  console.log(
    `${path.basename(file, '.json')}: ${status}, ${history.events?.length ?? 0} events -> ${path.relative(process.cwd(), target)}`,
  );
}

/** Runs `record` while a worker (workflows bundled from source) serves a fresh task queue. */
async function withWorker(
  connection: NativeConnection,
  activities: object,
  record: (taskQueue: string) => Promise<void>,
): Promise<void> {
  const taskQueue = `replay-record-${randomUUID()}`;
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: require.resolve('../../src/workflow/bundle-entry'),
    activities,
  });
  await worker.runUntil(() => record(taskQueue));
}

const SETS = ['gate', 'agent-run', 'workflow'] as const;

/** The set being recorded: the newest version, which must not exist yet (GATE_HISTORY_VERSION names it). */
let recording: HistoryVersion = HISTORY_VERSIONS[HISTORY_VERSIONS.length - 1]!;
/** Whether the set being recorded is `v` or newer. */
const since = (v: HistoryVersion): boolean => HISTORY_VERSIONS.indexOf(recording) >= HISTORY_VERSIONS.indexOf(v);

function checkNewSet(version: string, sets: readonly string[]): HistoryVersion {
  if (!(HISTORY_VERSIONS as readonly string[]).includes(version))
    throw new Error(
      `GATE_HISTORY_VERSION=${version} is not one of ${HISTORY_VERSIONS.join(', ')}; add it to HISTORY_VERSIONS first`,
    );
  const v = version as HistoryVersion;
  const dirs = [
    ...(sets.includes('gate') ? [gateHistoriesDir(v)] : []),
    ...(sets.includes('agent-run') ? [runHistoriesDir(v)] : []),
    ...(sets.includes('workflow') ? [workflowHistoriesDir(v)] : []),
  ];
  const taken = dirs.filter((d) => fs.existsSync(d) && fs.readdirSync(d).some((f) => f.endsWith('.json')));
  if (taken.length > 0)
    throw new Error(
      `history set ${v} is recorded already (${taken.join(', ')}); recorded sets are never re-recorded: add a new version`,
    );
  return v;
}

async function run(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address)
    throw new Error(
      'set TEMPORAL_ADDRESS to a dev server started with the Gate* search attributes (see the header of this file)',
    );
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !(SETS as readonly string[]).includes(a));
  if (unknown.length > 0)
    throw new Error(`unknown history set(s) ${unknown.join(', ')}; choose from ${SETS.join(', ')}`);
  const sets = asked.length > 0 ? asked : SETS;
  recording = checkNewSet(process.env.GATE_HISTORY_VERSION ?? recording, sets);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    if (sets.includes('gate'))
      await withWorker(nativeConnection, activities, (taskQueue) => recordGatePaths(client, taskQueue));
    if (sets.includes('agent-run')) await recordRunPaths(nativeConnection, client);
    if (sets.includes('workflow') && WORKFLOW_SET_VERSIONS.includes(recording))
      await recordWorkflowPaths(nativeConnection, client);
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}

if (require.main === module) {
  run().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
