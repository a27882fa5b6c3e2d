/**
 * Records the approvalGate histories that `approval-gate.replay.test.ts` replays.
 *
 *   .tools/temporal/bin/temporal server start-dev --headless --port 7299 \
 *     --search-attribute GateStatus=Keyword --search-attribute GateAction=Keyword \
 *     --search-attribute GateAgent=Keyword --search-attribute GateTarget=Keyword \
 *     --search-attribute GateRunId=Keyword &
 *   TEMPORAL_ADDRESS=127.0.0.1:7299 npx tsx test/replay/record-histories.ts
 *
 * Re-record only on purpose (a deliberate, versioned workflow change); the checked-in
 * histories are what guard the deployed code's determinism.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { GateActivities } from '../../src/activities/contracts';
import type { DecisionMessage } from '../../src/core/decision';
import { EvidencePayload, payloadSha256, requestIdFor } from '../../src/core/evidence';
import type { GateInput } from '../../src/core/gate-state';
// Type only: the replay test imports this file for the codec and must not load workflow code.
import type { approvalGateWorkflow } from '../../src/workflows';
import { consumeUpdate, decideSignal, decideUpdate } from '../../src/workflows/definitions';

export const HISTORIES_DIR = path.join(__dirname, 'histories');

type History = proto.temporal.api.history.v1.IHistory;

/*
 * History <-> proto3 JSON, the format of `temporal workflow show --output json` and of the
 * SDK's historyToJSON/historyFromJSON. We do not call those two: in this install npm keeps
 * three copies of protobufjs 8 (under @temporalio/common, /proto and /worker, because the root
 * holds grpc's protobufjs 7), and common's protojson refuses proto's reflected types with
 * "type must be a Type". Using protojson from the same copy as @temporalio/proto avoids that.
 * Once protobufjs is deduplicated, `historyToJSON(history)` and passing the parsed JSON
 * straight to runReplayHistories produce and read the very same files.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a path resolved at runtime, from @temporalio/proto's own copy
const protojson = require(require.resolve('protobufjs/ext/protojson', { paths: [path.dirname(require.resolve('@temporalio/proto/package.json'))] })) as {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
};
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType('temporal.api.history.v1.History');

/** A fetched history as proto3 JSON text. */
export function encodeHistory(history: History): string {
  return JSON.stringify(protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history)), null, 2) + '\n';
}

/** A proto3 JSON history file back into the History object `runReplayHistories` takes. */
export function decodeHistory(json: string): History {
  return protojson.fromJson(historyType, JSON.parse(json), { ignoreUnknownFields: true }) as History;
}

const AGENT = 'agent_billing';

/** Activities that succeed without side effects: the histories record the workflow, not a store. */
const activities: GateActivities = {
  async recordAuditEvent() {},
  async deliverWebhooks() {
    return { delivered: [] };
  },
  async recheckSnapshot() {
    return { ok: true };
  },
  async executeTool() {
    return { content: 'done' };
  },
  async reviseToolCall() {
    return { ok: false, issues: [{ path: '', message: 'not used in these histories' }] };
  },
};

/** A valid gate input for the external executor, expiring `ttlSeconds` from now. */
function gateInput(scenario: string, ttlSeconds: number): GateInput {
  const idempotency_key = `replay-${scenario}-${randomUUID()}`;
  const payload = EvidencePayload.parse({
    request_id: requestIdFor(idempotency_key),
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
  return { payload, payload_sha256: sha, approvals_required: 1, executor: 'external', consume_ttl_seconds: 600, create_sha256: sha };
}

function decision(input: GateInput, over: Partial<DecisionMessage>): DecisionMessage {
  return { decision_id: `dec_${randomUUID()}`, reviewer_id: 'reviewer_alice', decision: 'approve', payload_sha256: input.payload_sha256, ...over };
}

type Scenario = (client: Client, taskQueue: string) => Promise<WorkflowHandle<typeof approvalGateWorkflow>>;

/** Starts a gate; the workflow type name is frozen (it is in every recorded history). */
function startGate(client: Client, taskQueue: string, input: GateInput): Promise<WorkflowHandle<typeof approvalGateWorkflow>> {
  return client.workflow.start<typeof approvalGateWorkflow>('approvalGateWorkflow', { taskQueue, workflowId: input.payload.request_id, args: [input] });
}

const scenarios: Record<string, Scenario> = {
  /** Approved by update, then consumed once by the requesting agent. */
  'approve-consume': async (client, taskQueue) => {
    const input = gateInput('approve-consume', 3600);
    const handle = await startGate(client, taskQueue, input);
    await handle.executeUpdate(decideUpdate, { args: [decision(input, { note: 'matches the ticket' })] });
    await handle.executeUpdate(consumeUpdate, { args: [{ consumer_id: AGENT }] });
    return handle;
  },
  /** Denied by a signal, the path any service can use. */
  'reject-signal': async (client, taskQueue) => {
    const input = gateInput('reject-signal', 3600);
    const handle = await startGate(client, taskQueue, input);
    await handle.signal(decideSignal, decision(input, { decision: 'reject', reason: 'the charge was already refunded' }));
    return handle;
  },
  /** No decision before a 2-second TTL: fails closed. */
  'ttl-expiry': async (client, taskQueue) => {
    const input = gateInput('ttl-expiry', 2);
    return startGate(client, taskQueue, input);
  },
};

async function run(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('set TEMPORAL_ADDRESS to a dev server started with the Gate* search attributes (see the header of this file)');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const taskQueue = `replay-record-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    const worker = await Worker.create({ connection: nativeConnection, taskQueue, workflowsPath: require.resolve('../../src/workflows'), activities });
    await worker.runUntil(async () => {
      const client = new Client({ connection });
      fs.mkdirSync(HISTORIES_DIR, { recursive: true });
      for (const [name, scenario] of Object.entries(scenarios)) {
        const handle = await scenario(client, taskQueue);
        const state = await handle.result();
        const history = await handle.fetchHistory();
        const file = path.join(HISTORIES_DIR, `${name}.json`);
        fs.writeFileSync(file, encodeHistory(history));
        console.log(`${name}: ${state.status}, ${history.events?.length ?? 0} events -> ${path.relative(process.cwd(), file)}`);
      }
    });
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
