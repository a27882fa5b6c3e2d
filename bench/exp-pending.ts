// scratch experiment: N pending gates, worker RSS, decision latency
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/dev/temporal-cli';
import { ensureSearchAttributes } from '../src/dev/search-attributes';
import { GateClient } from '../src/client/gate-client';
import { prepareCreate } from '../src/client/create-request';
import { startOptions } from '../src/client/start-options';

const N = Number(process.env.N ?? 3000);
async function freePort(): Promise<number> {
  return new Promise((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as net.AddressInfo; s.close(() => resolve(port)); }); });
}
const rss = (pid: number): number => { const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8')); return m ? Number(m[1]) / 1024 : NaN; };
async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-'));
  const server = await startDevServer({ port: await freePort(), headless: true, logFile: path.join(dir, 't.log'), dbFile: process.env.DBFILE ? path.join(dir, 'temporal.db') : undefined });
  await ensureSearchAttributes(server.address, 'default');
  const env = { ...process.env, TEMPORAL_ADDRESS: server.address, GATE_DATA_DIR: dir, GATE_TASK_QUEUE: 'exp' };
  const w = spawn(process.execPath, [...(process.env.NODEFLAGS ?? '').split(' ').filter(Boolean), 'bin/gate.js', 'worker'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  await new Promise((r) => setTimeout(r, 8000));
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const gc = new GateClient(client, { taskQueue: 'exp' });
  console.log(`worker rss ${rss(w.pid!).toFixed(0)} MB, server ${rss(server.process.pid!).toFixed(0)} MB`);
  const ids: { id: string; sha: string }[] = [];
  let next = 0; const t0 = Date.now();
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < N) {
      const i = next++;
      const body = { correlation_id: `c${i}`, trigger_event_id: `e${i}`, action: 'refund.create', target: `ch_${i}`, summary: `Refund ${i}`, blast_radius: { amount_cents: 100 }, args: { amount: i }, preconditions: {}, ttl_seconds: 86400 };
      const { requestId, input } = prepareCreate(body, { agentId: 'a1' } as never);
      await client.workflow.start('approvalGateWorkflow', startOptions(requestId, input, 'exp', randomUUID()) as never);
      ids.push({ id: requestId, sha: input.payload_sha256 });
      if (i % 1000 === 0) console.log(`${i} created, ${((Date.now() - t0) / 1000).toFixed(0)} s, worker rss ${rss(w.pid!).toFixed(0)} MB`);
    }
  }));
  console.log(`created ${N} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  for (let k = 0; k < 6; k++) { await new Promise((r) => setTimeout(r, 5000)); console.log(`idle: worker rss ${rss(w.pid!).toFixed(0)} MB server ${rss(server.process.pid!).toFixed(0)} MB`); }
  if (process.env.SNAP) { w.kill('SIGUSR2'); await new Promise((r) => setTimeout(r, 15000)); }
  const lat: number[] = [];
  for (let k = 0; k < 20; k++) {
    const g = ids[Math.floor(Math.random() * ids.length)]!;
    const s = performance.now();
    try { await gc.decide(g.id, { decision_id: randomUUID(), reviewer_id: 'r1', decision: 'approve', payload_sha256: g.sha } as never); lat.push(performance.now() - s); }
    catch (e) { console.log(`decision failed after ${(performance.now() - s).toFixed(0)} ms: ${String(e)}`); }
  }
  lat.sort((a, b) => a - b);
  console.log(`decisions ok ${lat.length}/20 p50 ${lat[Math.floor(lat.length / 2)]?.toFixed(0)} ms max ${lat[lat.length - 1]?.toFixed(0)}; worker rss ${rss(w.pid!).toFixed(0)} MB`);
  w.kill('SIGTERM'); await connection.close(); await server.stop();
}
main().catch((e) => { console.error(e); process.exit(1); });
