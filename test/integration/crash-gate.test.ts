import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import Database from 'better-sqlite3';
import { EvidencePayload } from '../../src/common/evidence';
import type { GateInput, GateState } from '../../src/common/gate-state';
import { startDevServer, type DevServer } from '../../src/dev/temporal-cli';
import { createTripDomain, listSubmissions, migrateTripStore } from '../../examples/trip';
import { openSqlite, type Db } from '../../src/store/db';
import { approvalGateWorkflow } from '../../src/workflow/gate/approval-gate';
import { consumeUpdate, decideSignal, decideUpdate, getGateQuery } from '../../src/workflow/gate/messages';
import { freePort } from '../support/ports';
import { killLeftoverWorkers, spawnWorker, uniqueTaskQueue, type WorkerProcess } from '../support/processes';
import { waitFor } from '../support/wait';
import { approvalOf, gateInputFor } from '../support/gate-fixtures';

// Crash tests with real processes: the worker and the Temporal dev server are killed
// with SIGKILL (no shutdown hooks, no drain) and the gate must carry on from history.

const AGENT = 'agent-crash';
let connection: Connection;
let client: Client;
const dirs: string[] = [];
const servers: DevServer[] = [];

beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection });
});

afterAll(async () => {
  await killLeftoverWorkers();
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  await connection?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-crash-'));
  dirs.push(d);
  return d;
}

function requestId(): string {
  return `appr_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

/** A GateInput around evidence fields; the payload is parsed so it is exactly what the API would store. */
function gateInput(
  id: string,
  fields: Partial<EvidencePayload> & Pick<EvidencePayload, 'args'>,
  extra: Partial<GateInput> = {},
  ttlSeconds = 600,
): GateInput {
  const payload = EvidencePayload.parse({
    request_id: id,
    idempotency_key: `idem-${id}`,
    expires_at: new Date(Date.now() + ttlSeconds * 1000).toISOString(),
    correlation_id: `corr-${id}`,
    agent_id: AGENT,
    trigger_event_id: `evt-${id}`,
    action: 'trip.submit',
    target: `target-${id}`,
    summary: 'Submit a 2-day trip to Busan, 800,000 KRW',
    ...fields,
  });
  return gateInputFor(payload, extra);
}

/** The gate answers `requested` and has no activity in flight (so a kill loses no audit write to a 30 s timeout). */
async function settledRequested(handle: WorkflowHandle<typeof approvalGateWorkflow>): Promise<GateState> {
  return waitFor('the gate to be requested with no activity in flight', async () => {
    const s = await handle.query(getGateQuery);
    if (s.status !== 'requested') return undefined;
    const d = await handle.describe();
    return (d.raw.pendingActivities?.length ?? 0) === 0 ? s : undefined;
  });
}

/** Drafts and validates a trip in `sessionId` and returns the gate input of its submit, as the trip adapter plans it. */
async function plannedSubmitGate(db: Db, sessionId: string, id: string): Promise<GateInput> {
  const trip = createTripDomain(db);
  await trip.execute(
    sessionId,
    'draft_trip_request',
    { destination: 'Busan', days: 2, budget: 800_000 },
    `${sessionId}:draft`,
  );
  await trip.execute(sessionId, 'validate_trip_request', {}, `${sessionId}:validate`);
  const plan = await trip.plan(sessionId, 'submit_trip_request', {});
  if (plan.policy !== 'require_approval') throw new Error(`expected the submit to need approval, got ${plan.policy}`);
  expect(plan.approvals_required).toBe(1);
  return gateInput(
    id,
    {
      action: plan.evidence.action,
      target: plan.evidence.target,
      summary: plan.evidence.summary,
      blast_radius: plan.evidence.blast_radius,
      preconditions: plan.evidence.preconditions,
      snapshot: plan.evidence.snapshot,
      args: plan.input,
    },
    { executor: 'tool', tool: { domain: 'trip', session_id: sessionId }, approvals_required: plan.approvals_required },
  );
}

describe('gate survives a killed worker', () => {
  it('runs the tool exactly once when the worker was SIGKILLed while the gate waited and the approval came by signal with no worker up', async () => {
    const dataDir = tempDir();
    const taskQueue = uniqueTaskQueue('crash-gate');
    const db = openSqlite(path.join(dataDir, 'gate.db'));
    try {
      await migrateTripStore(db);
      const sessionId = `sess_${randomUUID().slice(0, 8)}`;
      const id = requestId();
      const input = await plannedSubmitGate(db, sessionId, id);

      const first: WorkerProcess = await spawnWorker({ dataDir, taskQueue });
      const handle = await client.workflow.start(approvalGateWorkflow, { workflowId: id, taskQueue, args: [input] });
      const waiting = await settledRequested(handle);
      expect(waiting.payload_sha256).toBe(input.payload_sha256);

      expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
      await handle.signal(decideSignal, approvalOf(input)); // accepted by the server with no worker polling
      expect(await listSubmissions(db)).toHaveLength(0);

      await spawnWorker({ dataDir, taskQueue });
      const final = await handle.result();
      expect(final).toMatchObject({
        status: 'consumed',
        consumed_by: 'approval-gate',
        decision: { decision: 'approve', reviewer_id: 'rev-1' },
      });
      expect(final.execution).toMatchObject({ outcome: 'success' });
      const mine = (await listSubmissions(db)).filter((s) => s.request_id === id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        destination: 'Busan',
        days: 2,
        budget: 800_000,
        submission_id: final.execution!.values!.submission_id,
      });
    } finally {
      await db.close();
    }
  });
});

describe('gate survives a killed Temporal server', () => {
  it('keeps a pending external gate across a SIGKILL and restart of the dev server on its SQLite file, then approves and consumes it', async () => {
    const dir = tempDir();
    const port = await freePort();
    const dbFile = path.join(dir, 'temporal.db');
    const logFile = path.join(dir, 'temporal.log');
    let server = await startDevServer({ port, dbFile, headless: true, logFile });
    servers.push(server);
    const own = await Connection.connect({ address: server.address });
    try {
      const ownClient = new Client({ connection: own });
      const taskQueue = uniqueTaskQueue('crash-server');
      let worker = await spawnWorker({ dataDir: dir, taskQueue, temporalAddress: server.address });
      const id = requestId();
      const input = gateInput(id, { args: { destination: 'Busan', days: 2, budget: 800_000 } }, {}, 3600);
      const handle = await ownClient.workflow.start(approvalGateWorkflow, { workflowId: id, taskQueue, args: [input] });
      await settledRequested(handle);
      // The dev server keeps its file in WAL mode (devServerArgs): the kill below is what that mode must survive.
      const file = new Database(dbFile, { readonly: true, fileMustExist: true });
      expect(file.pragma('journal_mode', { simple: true })).toBe('wal');
      file.close();

      await server.stop('SIGKILL');
      servers.splice(servers.indexOf(server), 1);
      server = await startDevServer({ port, dbFile, headless: true, logFile });
      servers.push(server);

      // The worker may or may not outlive a server that vanished; the gate must not depend on it.
      const alive = await Promise.race([
        worker.exited.then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), 500)),
      ]);
      if (!alive) worker = await spawnWorker({ dataDir: dir, taskQueue, temporalAddress: server.address });

      const after = await waitFor(
        'the gate to answer after the restart',
        () => ownClient.workflow.getHandle(id).query(getGateQuery),
        45_000,
        500,
      );
      expect(after).toMatchObject({
        request_id: id,
        status: 'requested',
        payload_sha256: input.payload_sha256,
        expires_at: input.payload.expires_at,
      });
      expect((await handle.describe()).status.name).toBe('RUNNING');

      const decided = await handle.executeUpdate(decideUpdate, { args: [approvalOf(input)] });
      expect(decided).toMatchObject({ status: 'approved', applied: true });
      const consumed = await handle.executeUpdate(consumeUpdate, { args: [{ consumer_id: AGENT }] });
      expect(consumed.args).toEqual(input.payload.args);
      expect(await handle.result()).toMatchObject({ status: 'consumed', consumed_by: AGENT });
      await worker.kill('SIGKILL');
    } finally {
      await own.close();
    }
  });
});

describe('a decision sent right after creation', () => {
  it('is never lost: 10 gates in parallel, approved by a signal sent as soon as start returns or by signalWithStart', async () => {
    const dataDir = tempDir();
    const taskQueue = uniqueTaskQueue('crash-race');
    await spawnWorker({ dataDir, taskQueue });
    const inputs = Array.from({ length: 10 }, () =>
      gateInput(requestId(), { args: { destination: 'Jeju', days: 1, budget: 100_000 } }),
    );
    const handles = await Promise.all(
      inputs.map(async (input, i) => {
        const opts = { workflowId: input.payload.request_id, taskQueue, args: [input] as [GateInput] };
        if (i % 2 === 1)
          return client.workflow.signalWithStart(approvalGateWorkflow, {
            ...opts,
            signal: decideSignal,
            signalArgs: [approvalOf(input)],
          });
        const h = await client.workflow.start(approvalGateWorkflow, opts);
        await h.signal(decideSignal, approvalOf(input)); // sent as soon as start returns, before anything else
        return h;
      }),
    );
    const states = await Promise.all(
      handles.map((h) =>
        waitFor('approved', async () => ((await h.query(getGateQuery)).status === 'approved' ? h : undefined)),
      ),
    );
    expect(states).toHaveLength(10);
    await Promise.all(handles.map((h) => h.executeUpdate(consumeUpdate, { args: [{ consumer_id: AGENT }] })));
    const finals = await Promise.all(handles.map((h) => h.result()));
    for (const f of finals) {
      expect(f).toMatchObject({ status: 'consumed', decision: { decision: 'approve', reviewer_id: 'rev-1' } });
      expect(f.votes).toHaveLength(1);
    }
  });
});
