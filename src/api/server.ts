import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pino from 'pino';
import { temporalAddressOf, type GateConfig } from '../config';
import { GateClient } from '../client/gate-client';
import { AuditStore } from '../store/audit-store';
import { openDb, type Db } from '../store/db';
import { KeyStore } from '../store/key-store';
import { approvalRoutes } from './approval-routes';
import { runRoutes } from './run-routes';
import { keyAuth, type RequireKey } from './auth';
import { BODY_LIMIT_BYTES, frameworkErrors, installErrorHandlers, installJsonParser, MAX_PARAM_LENGTH } from './errors';
import { REVIEWER_PAGE_CSP, REVIEWER_PAGE_HTML } from './reviewer-page';

/** What an extra router gets: the auth hooks and the shared services. */
export interface RouteContext {
  /** `onRequest` hook: `requireKey('agent')`, `requireKey('reviewer')`, or `requireKey()` for either. */
  requireKey: RequireKey;
  gate: GateClient;
  keys: KeyStore;
  audit: AuditStore;
  /** The Temporal client, when the server was given one (always under `startApiServer`). */
  temporal?: Client;
  /** The store the API opened (domain tables live there too). */
  db?: Db;
}

/**
 * Hook for routes owned elsewhere (`/v1/runs`, `/v1/domains/...`). Registered as a fastify
 * plugin after the approval routes, inheriting the JSON parser and the error handler: throw
 * GateError (or any error with `status` and `code`) and the caller gets `{ error: {...} }`.
 *
 * @example extraRoutes: (app, { requireKey }) => app.post('/v1/runs', { onRequest: requireKey('agent') }, handler)
 */
export type ExtraRoutes = (app: FastifyInstance, ctx: RouteContext) => void | Promise<void>;

export interface ApiServerDeps {
  gate: GateClient;
  keys: KeyStore;
  audit: AuditStore;
  temporal?: Client;
  db?: Db;
  /** A pino logger; silent when absent. */
  logger?: FastifyBaseLogger;
  extraRoutes?: ExtraRoutes;
}

/** Builds the HTTP API without listening (tests use `inject` or `listen({ port: 0 })`). */
export function createApiServer(deps: ApiServerDeps): FastifyInstance {
  const limits = { bodyLimit: BODY_LIMIT_BYTES, routerOptions: { maxParamLength: MAX_PARAM_LENGTH }, frameworkErrors };
  const app: FastifyInstance = (deps.logger
    ? Fastify({ loggerInstance: deps.logger, ...limits })
    : Fastify({ logger: false, ...limits })) as unknown as FastifyInstance;
  installJsonParser(app);
  installErrorHandlers(app);
  const requireKey = keyAuth(deps.keys);

  app.get('/healthz', async () => ({ ok: true, ...(await deps.gate.health()) }));
  app.get('/', async (_req, reply) => {
    void reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', REVIEWER_PAGE_CSP)
      .header('x-content-type-options', 'nosniff');
    return REVIEWER_PAGE_HTML;
  });
  approvalRoutes(app, deps.gate, requireKey);

  const extra = deps.extraRoutes;
  if (extra) {
    const ctx: RouteContext = {
      requireKey,
      gate: deps.gate,
      keys: deps.keys,
      audit: deps.audit,
      temporal: deps.temporal,
      db: deps.db,
    };
    void app.register(async (scope) => extra(scope, ctx));
  }
  return app;
}

/** A listening API and how to stop it. */
export interface RunningApi {
  url: string;
  app: FastifyInstance;
  gate: GateClient;
  /** Stops listening, then closes the Temporal connection and the database. */
  close(): Promise<void>;
}

/**
 * `gate api` / `gate dev`: connects to Temporal at `temporalAddressOf(cfg)`, opens the
 * store (cfg.databaseUrl, else `<dataDir>/gate.db`), migrates the audit and key tables
 * and listens on cfg.host:cfg.port with the approval routes, the run routes and
 * `opts.extraRoutes`. Throws when Temporal or the port is unavailable.
 */
export async function startApiServer(
  cfg: GateConfig,
  opts: { extraRoutes?: ExtraRoutes; logger?: FastifyBaseLogger } = {},
): Promise<RunningApi> {
  const db = openDb({ databaseUrl: cfg.databaseUrl, sqliteFile: path.join(cfg.dataDir, 'gate.db') });
  let connection: Connection | undefined;
  try {
    const audit = new AuditStore(db);
    const keys = new KeyStore(db);
    await audit.migrate();
    await keys.migrate();
    connection = await Connection.connect({ address: temporalAddressOf(cfg) });
    const temporal = new Client({ connection, namespace: cfg.namespace });
    const gate = new GateClient(temporal, { taskQueue: cfg.taskQueue, namespace: cfg.namespace, audit });
    const logger =
      opts.logger ?? (pino({ level: process.env.GATE_LOG_LEVEL || 'info' }) as unknown as FastifyBaseLogger);
    const app = createApiServer({
      gate,
      keys,
      audit,
      temporal,
      db,
      logger,
      extraRoutes: opts.extraRoutes ?? runRoutes(cfg),
    });
    await app.listen({ host: cfg.host, port: cfg.port });
    const addr = app.server.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    const conn = connection;
    return {
      url: `http://${host}:${addr.port}`,
      app,
      gate,
      async close() {
        await app.close();
        await conn.close();
        await db.close();
      },
    };
  } catch (err) {
    await connection?.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw err;
  }
}
