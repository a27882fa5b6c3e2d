// `npm run bench`: prints latency and throughput of the gate lifecycle on a real
// Temporal dev server (in memory, started here) with an in-process worker.
// Measured per gate: start (create), approve (update round trip), consume (update
// round trip), and end-to-end; N gates at concurrency C (BENCH_N, BENCH_C).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { payloadSha256, type EvidencePayload } from '../src/core/evidence';
import { digest } from '../src/core/hashing';
import type { GateInput } from '../src/core/gate-state';
import { startDevServer } from '../src/dev/temporal-cli';
import { openSqlite } from '../src/store/db';
import { consumeUpdate, decideUpdate } from '../src/workflows/definitions';

const N = Number(process.env.BENCH_N ?? 200);
const C = Number(process.env.BENCH_C ?? 20);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function gateInput(i: number): GateInput {
  const id = `bench_${randomUUID().slice(0, 12)}`;
  const payload: EvidencePayload = {
    request_id: id, correlation_id: `corr_${i}`, agent_id: 'bench-agent', trigger_event_id: `evt_${i}`,
    action: 'refund.create', target: `ch_${i}`, summary: `Refund ${i}`, blast_radius: { amount_cents: 1000 + i },
    args: { charge: `ch_${i}`, amount: 1000 + i }, preconditions: {}, idempotency_key: id,
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
  };
  return { payload, payload_sha256: payloadSha256(payload), approvals_required: 1, executor: 'external', consume_ttl_seconds: 3600, create_sha256: digest(payload) };
}

const pct = (xs: number[], p: number): number => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const fmt = (xs: number[]): string => `p50 ${pct(xs, 50).toFixed(1)} ms  p95 ${pct(xs, 95).toFixed(1)} ms  max ${Math.max(...xs).toFixed(1)} ms`;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-bench-'));
  const server = await startDevServer({ port: await freePort(), headless: true, logFile: path.join(dir, 'temporal.log') });
  const db = openSqlite(path.join(dir, 'gate.db'));
  const { activities } = await createActivities({ db });
  const nconn = await NativeConnection.connect({ address: server.address });
  const taskQueue = 'bench';
  const worker = await Worker.create({ connection: nconn, taskQueue, workflowsPath: require.resolve('../src/workflows'), activities });
  const running = worker.run();
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const start: number[] = [], approve: number[] = [], consume: number[] = [], total: number[] = [];

  const one = async (i: number): Promise<void> => {
    const input = gateInput(i);
    const t0 = performance.now();
    const h = await client.workflow.start('approvalGateWorkflow', { workflowId: input.payload.request_id, taskQueue, args: [input] });
    const t1 = performance.now();
    await h.executeUpdate(decideUpdate, { args: [{ decision_id: randomUUID(), reviewer_id: 'bench-reviewer', decision: 'approve', payload_sha256: input.payload_sha256 }] });
    const t2 = performance.now();
    await h.executeUpdate(consumeUpdate, { args: [{ consumer_id: 'bench-agent' }] });
    const t3 = performance.now();
    start.push(t1 - t0); approve.push(t2 - t1); consume.push(t3 - t2); total.push(t3 - t0);
  };

  await one(-1); // warm-up (bundling, first task)
  start.length = approve.length = consume.length = total.length = 0;
  const began = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: C }, async () => { while (next < N) await one(next++); }));
  const secs = (performance.now() - began) / 1000;

  console.log(`approval-gate bench: ${N} gates, concurrency ${C}, Temporal dev server (in memory), SQLite audit store`);
  console.log(`  create  ${fmt(start)}`);
  console.log(`  approve ${fmt(approve)}  (update round trip, validator + handler)`);
  console.log(`  consume ${fmt(consume)}`);
  console.log(`  total   ${fmt(total)}`);
  console.log(`  throughput ${(N / secs).toFixed(1)} gates/s (create+approve+consume), ${secs.toFixed(1)} s wall`);

  worker.shutdown();
  await running;
  await connection.close();
  await nconn.close();
  await db.close();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
