import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startApiServer, type RunningApi } from '../../src/api/server';
import { loadConfig } from '../../src/config';
import { tripDomain } from '../../examples/trip';
import { openDb } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { startTracing, tracingExporters, type Tracing } from '../../src/telemetry/tracing';
import { installWorkerRuntime } from '../../src/worker/runtime';
import { createGateWorker, type GateWorker } from '../../src/worker/create-gate-worker';
import { freePort } from '../support/ports';
import { waitFor } from '../support/wait';
import { evidence } from '../e2e/api-harness';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let worker: GateWorker;
let running: Promise<void>;
let api: RunningApi;
const keys = { agent: '', reviewer: '' };

beforeAll(async () => {
  installWorkerRuntime({ logLevel: 'error' });
  process.env.GATE_LOG_LEVEL = 'silent';
  tracing = startTracing('approval-gate-test', { exporter })!;
  const dataDir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-tracing-'));
  const env = {
    ...process.env,
    GATE_DATA_DIR: dataDir,
    GATE_TASK_QUEUE: `tracing-${randomBytes(6).toString('hex')}`,
    GATE_PORT: String(await freePort()),
    GATE_LOG_LEVEL: 'silent',
  };
  const db = openDb({ sqliteFile: path.join(dataDir, 'gate.db') });
  const ks = new KeyStore(db);
  await ks.migrate();
  keys.agent = (await ks.create('agent', 'agent-1')).key;
  keys.reviewer = (await ks.create('reviewer', 'rev-1')).key;
  await db.close();
  // The real worker (bundled from source with the OpenTelemetry workflow interceptors) and the real API.
  worker = await createGateWorker({ ...loadConfig(env), domains: [tripDomain] });
  running = worker.run();
  api = await startApiServer(loadConfig(env));
}, 120_000);
afterAll(async () => {
  await api?.close();
  await worker?.shutdown();
  await running;
  await tracing?.shutdown();
});

async function post(p: string, key: string, traceparent: string, body?: unknown) {
  const res = await fetch(`${api.url}${p}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent },
    body: JSON.stringify(body ?? {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('OpenTelemetry tracing', () => {
  it('is off unless the standard OTEL_* variables ask for an exporter', () => {
    expect(tracingExporters({})).toEqual([]);
    expect(tracingExporters({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual(['otlp']);
    expect(tracingExporters({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual(['otlp']);
    expect(tracingExporters({ OTEL_TRACES_EXPORTER: 'otlp,console', OTEL_SDK_DISABLED: 'true' })).toEqual([]);
    expect(tracingExporters({ OTEL_TRACES_EXPORTER: 'none' })).toEqual([]);
    expect(() => tracingExporters({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/unsupported zipkin/);
  });

  it("puts create, decide and consume, with the workflow and activity spans under them, in the caller's one trace", async () => {
    const traceId = randomBytes(16).toString('hex');
    const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
    const created = await post('/v1/approvals', keys.agent, traceparent, evidence({ ttl_seconds: 600 }));
    expect(created.status).toBe(201);
    const id = String(created.body.request_id);
    const decision = { decision: 'approve', payload_sha256: String(created.body.payload_sha256) };
    expect((await post(`/v1/approvals/${id}/decision`, keys.reviewer, traceparent, decision)).status).toBe(200);
    expect((await post(`/v1/approvals/${id}/consume`, keys.agent, traceparent)).status).toBe(200);
    // A second gate, withdrawn: the cancel update hands back no events, so the gate writes its own (an activity).
    const other = await post('/v1/approvals', keys.agent, traceparent, evidence({ ttl_seconds: 600 }));
    expect(other.status).toBe(201);
    expect((await post(`/v1/approvals/${String(other.body.request_id)}/cancel`, keys.agent, traceparent)).status).toBe(
      200,
    );

    const inTrace = (): ReadableSpan[] =>
      exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const names = await waitFor(
      'the gate workflow span to end',
      () => {
        const n = inTrace().map((s) => s.name);
        return (
          n.filter((x) => x === 'RunWorkflow:approvalGateWorkflow').length >= 2 &&
          n.includes('RunActivity:recordAuditEvents') &&
          n
        );
      },
      30_000,
      200,
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /v1/approvals',
        'POST /v1/approvals/:id/decision',
        'POST /v1/approvals/:id/consume',
        'StartWorkflow:approvalGateWorkflow',
        'RunWorkflow:approvalGateWorkflow',
      ]),
    );
    // The decide and consume updates, on the client and in the workflow's handlers.
    expect(names).toEqual(
      expect.arrayContaining([
        'StartWorkflowUpdate:decide',
        'ValidateUpdate:decide',
        'HandleUpdate:decide',
        'StartWorkflowUpdate:consume',
        'HandleUpdate:consume',
      ]),
    );
    // The first gate's events the API wrote itself, under audit intents; the withdrawn gate wrote its own.
    expect(names.filter((n) => n === 'StartActivity:recordAuditEvents')).toHaveLength(1);
    expect(names).toContain('RunActivity:recordAuditEvents');
    // One trace: every span's parent is in it too (or is the caller's own span).
    const ids = new Set(inTrace().map((s) => s.spanContext().spanId));
    const callerSpan = traceparent.split('-')[2];
    for (const s of inTrace()) expect([...ids, callerSpan]).toContain(s.parentSpanId);
  });
});
