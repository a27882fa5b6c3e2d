// The real HTTP API in the bench process (`startApiServer`, as `gate api` runs it), with
// an agent key and a reviewer key in its key store, and a small fetch helper.
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
import { tripDomain } from '../src/domain/trip';

export interface BenchApi {
  url: string;
  agentKey: string;
  reviewerKey: string;
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
  return { url: api.url, agentKey, reviewerKey, close: () => api.close() };
}

export interface HttpResult {
  status: number;
  body: unknown;
}

/** One JSON request with a bearer key. */
export async function http(
  url: string,
  key: string,
  method: 'GET' | 'POST',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body: parsed };
}
