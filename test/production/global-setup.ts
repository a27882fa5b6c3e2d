import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { generateWebhookSecret } from '../../src/webhooks';
import { freePort, freePortRange } from '../support/ports';
import { STACK_TARGET_ENV, type StackTarget } from '../support/stack-target';
import { PRODUCTION_KEYS } from './keys';
import { boundaryStackEnv } from '../chaos/boundaries';

const ROOT = path.resolve(__dirname, '..', '..');

declare global {
  var __GATE_PROD__: { dir: string; env: Record<string, string>; receiver: http.Server } | undefined;
}

/** Runs `gate` with `env` and resolves to its stdout; throws with stderr on a non-zero exit. */
export function gate(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 20 * 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'gate.js'), ...args], { env, cwd: ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
      if (process.env.GATE_PROD_VERBOSE) process.stderr.write(b);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`gate ${args.join(' ')} exited ${code}:\n${err}\n${out}`));
    });
  });
}

/** A webhook receiver that answers 200 and appends each delivery (headers and raw body) as a JSON line. */
async function startReceiver(log: string): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      fs.appendFileSync(log, `${JSON.stringify({ headers: req.headers, body: Buffer.concat(chunks).toString() })}\n`);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

/**
 * The production suite's stack: `gate stack up --json` on free ports in a temp data dir
 * (the first run on a machine builds the Temporal server), a webhook receiver, and the
 * keys the reused e2e files expect, written to the key store on the stack's PostgreSQL.
 */
export default async function globalSetup(): Promise<void> {
  // Under /tmp: PostgreSQL runs as the postgres user, which must reach its data dir.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-prod-'));
  fs.chmodSync(dir, 0o755);
  const webhookLog = path.join(dir, 'webhooks.jsonl');
  fs.writeFileSync(webhookLog, '');
  const receiver = await startReceiver(webhookLog);
  const webhookSecret = generateWebhookSecret();
  const boundaries = path.join(dir, 'boundaries');
  fs.mkdirSync(boundaries);
  const env: Record<string, string> = {
    GATE_DATA_DIR: dir,
    GATE_PORT: String(await freePort()),
    GATE_STACK_PG_PORT: String(await freePort()),
    GATE_STACK_TEMPORAL_PORT: String(await freePortRange(11)),
    GATE_WEBHOOK_URLS: receiver.url,
    GATE_WEBHOOK_SECRET: webhookSecret,
    // The chaos file's holds (test/chaos/boundaries.ts); no hold file, no pause.
    ...boundaryStackEnv(boundaries),
    GATE_LOG_LEVEL: 'warn',
  };
  globalThis.__GATE_PROD__ = { dir, env, receiver: receiver.server };
  const started = Date.now();
  const info = JSON.parse(await gate(['stack', 'up', '--json'], { ...process.env, ...env })) as StackTarget['info'];
  console.log(`\nproduction suite: gate stack up in ${((Date.now() - started) / 1000).toFixed(1)} s (${dir})`);

  const db = openDb({ databaseUrl: info.database_url, sqliteFile: ':memory:' });
  const keys: Record<string, string> = {};
  try {
    const store = new KeyStore(db);
    for (const [kind, id] of PRODUCTION_KEYS) keys[`${kind}:${id}`] = (await store.create(kind, id)).key;
  } finally {
    await db.close();
  }
  const target: StackTarget = {
    info,
    env,
    taskQueue: 'approval-gate',
    namespace: 'default',
    keys,
    webhookLog,
    webhookSecret,
  };
  const file = path.join(dir, 'target.json');
  fs.writeFileSync(file, JSON.stringify(target, null, 2));
  process.env[STACK_TARGET_ENV] = file;
  process.env.TEMPORAL_ADDRESS = info.temporal_address;
}
