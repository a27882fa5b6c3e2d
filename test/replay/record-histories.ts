/**
 * Records the histories the replay tests replay: approvalGate paths driven directly
 * (`approval-gate.replay.test.ts`, files in `histories/`) and agentRun paths with their
 * child gates, on every real activity (`agent-run.replay.test.ts`, `histories/agent-run/`).
 *
 *   .tools/temporal/bin/temporal server start-dev --headless --port 7299 \
 *     --search-attribute GateStatus=Keyword --search-attribute GateAction=Keyword \
 *     --search-attribute GateAgent=Keyword --search-attribute GateTarget=Keyword \
 *     --search-attribute GateRunId=Keyword --search-attribute GateRunStatus=Keyword &
 *   TEMPORAL_ADDRESS=127.0.0.1:7299 npx tsx test/replay/record-histories.ts [gate] [agent-run]
 *
 * With no argument both sets are recorded, into the newest version of HISTORY_VERSIONS
 * (history-codec.ts), which must not be recorded yet. Recorded sets are never re-recorded
 * or edited: a workflow change adds a version; the checked-in sets are what guard the
 * deployed code's determinism.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { GateActivities } from '../../src/activities/contracts';
import type { DecisionMessage } from '../../src/core/decision';
import { EvidencePayload, payloadSha256, requestIdFor } from '../../src/core/evidence';
import type { GateInput, GateState } from '../../src/core/gate-state';
import type { ScriptedTurn } from '../../src/models/spec';
// Type only: the replay test imports this file for the codec and must not load workflow code.
import type { approvalGateWorkflow } from '../../src/workflows';
import {
  CALLER_WRITES,
  consumeUpdate,
  decideSignal,
  decideUpdate,
  getGateQuery,
} from '../../src/workflows/definitions';
import { getRunQuery, respondInteractionUpdate, type RunStatus } from '../../src/workflows/run-definitions';
import type * as Harness from '../support/run-harness';
import {
  encodeHistory,
  gateHistoriesDir,
  HISTORY_VERSIONS,
  runHistoriesDir,
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
    requested_event: { event_id: `evt_${randomUUID()}`, timestamp: new Date().toISOString() },
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
    const w = since('v6') ? CALLER_WRITES : undefined;
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
  const { createActivities } = await import('../../src/activities');
  const { openSqlite } = await import('../../src/store/db');
  const { tripDomain } = await import('../../src/domain/trip');
  const h = await import('../support/run-harness');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-replay-record-'));
  const db = openSqlite(path.join(dir, 'gate.db'));
  try {
    const { activities: real } = await createActivities({ db, domains: [tripDomain] });
    fs.mkdirSync(runHistoriesDir(recording), { recursive: true });
    await withWorker(nativeConnection, real, async (taskQueue) => {
      for (const [name, p] of Object.entries(RUN_PATHS)) await recordRunPath(h, client, taskQueue, name, p);
    });
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
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
    workflowsPath: require.resolve('../../src/workflows'),
    activities,
  });
  await worker.runUntil(() => record(taskQueue));
}

const SETS = ['gate', 'agent-run'] as const;

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
