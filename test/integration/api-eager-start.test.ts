import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { startApiServer, type RunningApi } from '../../src/api/server';
import { loadConfig } from '../../src/config';
import { tripDomain } from '../../examples/trip';
import { openDb } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { installWorkerRuntime } from '../../src/worker/runtime';
import { createGateWorker, type GateWorker } from '../../src/worker/create-gate-worker';
import { freePort } from '../support/ports';
import { evidence } from '../e2e/api-harness';

/**
 * `gate dev`'s arrangement: an API in the worker's process, on the worker's connection.
 * Its creates go through the task queue unless GATE_EAGER_START is on; with it, Temporal
 * hands each new gate's first task to that worker in the start's answer, and says so in
 * the gate's first history event.
 */
let worker: GateWorker;
let running: Promise<void>;
let agentKey = '';
let env: NodeJS.ProcessEnv;
const apis: RunningApi[] = [];

beforeAll(async () => {
  installWorkerRuntime({ logLevel: 'error' });
  const dataDir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-eager-'));
  env = {
    ...process.env,
    GATE_DATA_DIR: dataDir,
    GATE_TASK_QUEUE: `eager-api-${randomBytes(6).toString('hex')}`,
    GATE_LOG_LEVEL: 'silent',
    ...(process.env.GATE_TEST_WORKFLOW_BUNDLE ? { GATE_WORKFLOW_BUNDLE: process.env.GATE_TEST_WORKFLOW_BUNDLE } : {}),
  };
  const db = openDb({ sqliteFile: path.join(dataDir, 'gate.db') });
  const keys = new KeyStore(db);
  await keys.migrate();
  agentKey = (await keys.create('agent', 'agent-1')).key;
  await db.close();
  worker = await createGateWorker({ ...loadConfig(env), domains: [tripDomain] });
  running = worker.run();
}, 120_000);
afterAll(async () => {
  for (const api of apis) await api.close();
  await worker?.shutdown();
  await running;
});

/** Opens one gate through an API on the worker's connection; whether Temporal started it eagerly. */
async function createdEagerly(eager: string | undefined): Promise<boolean> {
  const cfg = loadConfig({ ...env, GATE_PORT: String(await freePort()), GATE_EAGER_START: eager });
  const api = await startApiServer(cfg, { domains: [tripDomain], connection: worker.connection });
  apis.push(api);
  const res = await fetch(`${api.url}/v1/approvals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(evidence({ ttl_seconds: 600 })),
  });
  expect(res.status).toBe(201);
  const { request_id } = (await res.json()) as { request_id: string };
  const client = new Client({ connection: worker.connection, namespace: cfg.namespace });
  const history = await client.workflow.getHandle(request_id).fetchHistory();
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.eagerExecutionAccepted === true;
}

it('starts gates through the task queue by default', async () => {
  expect(await createdEagerly(undefined)).toBe(false);
});

it('starts gates eagerly on the shared worker with GATE_EAGER_START=on', async () => {
  expect(await createdEagerly('on')).toBe(true);
});
