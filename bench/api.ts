// The real HTTP API in the bench process (`startApiServer`, as `gate api` runs it), with
// an agent key and a reviewer key in its key store, and a small HTTP client helper.
import { Agent, request } from 'node:http';
import path from 'node:path';
import type { NativeConnection } from '@temporalio/worker';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { startApiServer, type RunningApi } from '../src/api/server';
import { loadConfig } from '../src/config';
import { openSqlite } from '../src/store/db';
import { KeyStore } from '../src/store/key-store';
import { AGENT_ID, REVIEWER_ID } from './gate-requests';
import { freePort } from './temporal-server';
import { tripDomain } from '../examples/trip';

export interface BenchApi {
  url: string;
  agentKey: string;
  reviewerKey: string;
  /** The API's admission control: its readings say how far behind it saw the workers. */
  admission: RunningApi['admission'];
  close(): Promise<void>;
}

/** Creates the keys in `<GATE_DATA_DIR>/gate.db` (what `gate keys create` does), then starts the API on a free port. */
export async function startBenchApi(env: NodeJS.ProcessEnv, shared?: NativeConnection): Promise<BenchApi> {
  // The bench measures throughput, so the per-key rate limit (GATE_RATE_LIMIT) is off unless the caller sets it.
  const cfg = loadConfig({ GATE_RATE_LIMIT: '0', ...env, GATE_PORT: String(await freePort()) });
  const db = openSqlite(path.join(cfg.dataDir, 'gate.db'));
  let agentKey: string;
  let reviewerKey: string;
  try {
    const keys = new KeyStore(db);
    await keys.migrate();
    agentKey = (await keys.create('agent', AGENT_ID)).key;
    reviewerKey = (await keys.create('reviewer', REVIEWER_ID)).key;
  } finally {
    await db.close();
  }
  // No request log: a line per request would cost more than some of the routes measured.
  const api: RunningApi = await startApiServer(cfg, {
    domains: [tripDomain],
    logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
    ...(shared ? { connection: shared } : {}),
  });
  return { url: api.url, agentKey, reviewerKey, admission: api.admission, close: () => api.close() };
}

export interface HttpResult {
  status: number;
  body: unknown;
  /** The Retry-After header, when the answer had one. */
  retryAfter?: string;
}

/**
 * Keep-alive connections for the bench's requests. The client runs in the bench process, so
 * its CPU counts against what is measured: node:http costs about a fifth of `fetch` per
 * request here (60-110 against 290-490 µs of CPU, measured on this machine), which keeps
 * the client's share of the create section's figures small.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One JSON request with a bearer key. */
export function http(
  url: string,
  key: string,
  method: 'GET' | 'POST',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(data ? { 'content-type': 'application/json', 'content-length': String(data.length) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON: keep the text */
          }
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, body: parsed, ...(retryAfter ? { retryAfter } : {}) });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
