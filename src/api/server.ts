import { notifyEnv, type NotifySettings } from '../notify/config';
import type { CreateContext } from '../client/create-request';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import pino from 'pino';
import {
  DEFAULT_DECISION_WAIT_S,
  DEFAULT_LIST_CACHE_MS,
  DEFAULT_MAX_BACKLOG_S,
  temporalAddressOf,
  type GateConfig,
} from '../config';
import { GateClient } from '../client/gate-client';
import { ListCache } from './list-cache';
import { BacklogAdmission } from '../client/backlog-admission';
import { AuditStore } from '../store/audit-store';
import { openDb, type Db } from '../store/db';
import { KeyStore } from '../store/key-store';
import { loadPolicyFile } from '../policy/load-file';
import type { ReviewerPolicy } from '../policy/reviewer-policy';
import { GrantStore } from '../store/grant-store';
import { policyRoutes } from './policy-routes';
import { OidcVerifier } from './oidc';
import { oidcRoutes } from './oidc-routes';
import { approvalRoutes } from './approval-routes';
import { evidenceRoutes } from './evidence-routes';
import { SigningKeys, signingKeyFilesOf } from '../evidence/signing-keys';
import { runRoutes } from './run-routes';
import { createDomainRegistry, resolveDomains, type DomainRegistry } from '../domain/registry';
import type { DomainSource } from '../domain/types';
import { keyAuth, scopeOfRequest } from './auth';
import { visibleRunIds } from '../client/run-client';
import { GateError } from '../client/gate-error';
import { BODY_LIMIT_BYTES, frameworkErrors, installErrorHandlers, installJsonParser, MAX_PARAM_LENGTH } from './errors';
import { DEFAULT_HTTP_LIMITS, guardAuthFailures, registerHardening, type HttpLimits } from './http-hardening';
import { loadReviewerPage } from './reviewer-page';
import type { TrustProxy } from './trust-proxy';
import { ApiMetrics, metricsRoutes } from './metrics';
import { requestSpans } from '../telemetry/api-tracing';
import { activeTracing } from '../telemetry/tracing';
import type { ExtraRoutes, RouteContext } from './route-context';

export type { ExtraRoutes, RouteContext } from './route-context';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';

export interface ApiServerDeps {
  gate: GateClient;
  keys: KeyStore;
  audit: AuditStore;
  temporal?: Client;
  db?: Db;
  /** Domains whose routes are mounted under `/v1/domains/<name>`; none when absent. */
  domains?: DomainRegistry;
  /** A pino logger; silent when absent. */
  logger?: FastifyBaseLogger;
  extraRoutes?: ExtraRoutes;
  /** Rate limits; DEFAULT_HTTP_LIMITS when absent. */
  limits?: HttpLimits;
  /** The `/metrics` registry; one with the queue depth from `gate` when absent. */
  metrics?: ApiMetrics;
  /** Cache of the queue depth counts, when `metrics` is absent (default 10 s). */
  queueDepthTtlMs?: number;
  /** GATE_LIST_CACHE_MS: how long a listing's answer is served before it is refreshed (src/api/list-cache.ts); 0 or absent: no cache. */
  listCacheMs?: number;
  /** Accept OpenID Connect ID tokens from people, and run the reviewer page's sign-in. */
  oidc?: OidcVerifier;
  /** Whose X-Forwarded-For names the client address (fastify `trustProxy`); the socket's address when absent. */
  trustProxy?: TrustProxy;
  /** The rule file `POST /v1/policy/explain` explains (the one the gate client applies). */
  policy?: ReviewerPolicy;
  /** Standing grants, listed and revoked under `/v1/grants`. */
  grants?: GrantStore;
  /** Keys that sign evidence bundles and are published at `/v1/signing-keys`; without them, exports answer 503. */
  signing?: SigningKeys;
}

/** A route as registered: its method and its URL pattern (`/v1/approvals/:id`). */
export interface RouteInfo {
  method: string;
  url: string;
}

const ROUTES = new WeakMap<FastifyInstance, RouteInfo[]>();

/**
 * Every route the server registered (HEAD twins of GET routes left out), in order,
 * including routes of plugins, domains and `extraRoutes`: what the auth-matrix test
 * walks, so a route added without an entry in the matrix fails it.
 */
export function routesOf(app: FastifyInstance): RouteInfo[] {
  return [...(ROUTES.get(app) ?? [])];
}

/** Builds the HTTP API without listening (tests use `inject` or `listen({ port: 0 })`). */
export function createApiServer(deps: ApiServerDeps): FastifyInstance {
  const options = {
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    // req.ip (the rate limits' per-address buckets) comes from X-Forwarded-For only when these proxies sent it.
    trustProxy: deps.trustProxy ?? false,
  };
  const app: FastifyInstance = (deps.logger
    ? Fastify({ loggerInstance: deps.logger, ...options })
    : Fastify({ logger: false, ...options })) as unknown as FastifyInstance;
  const routes: RouteInfo[] = [];
  ROUTES.set(app, routes);
  // Registered before any route, so it sees them all (plugins inherit it).
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push({ method, url: r.url });
  });
  installJsonParser(app);
  installErrorHandlers(app);
  const limits = deps.limits ?? DEFAULT_HTTP_LIMITS;
  registerHardening(app, limits);
  // Routes in a scope that loads after the header and rate-limit plugins, so those hook into every route.
  void app.register(async (api) => {
    guardAuthFailures(api, limits);
    await apiRoutes(api, deps);
  });
  return app;
}

/** Every route of the API, in the scope `createApiServer` gives them. */
async function apiRoutes(app: FastifyInstance, deps: ApiServerDeps): Promise<void> {
  const requireKey = keyAuth(deps.keys, deps.oidc);
  oidcRoutes(app, deps.oidc);
  const page = loadReviewerPage();
  const metrics =
    deps.metrics ?? new ApiMetrics({ countGates: (s) => deps.gate.count(s), queueDepthTtlMs: deps.queueDepthTtlMs });
  metricsRoutes(app, metrics);
  const tracing = activeTracing();
  if (tracing) requestSpans(app, tracing.tracer);

  app.get('/healthz', async () => ({ ok: true, ...(await deps.gate.health()) }));
  app.get('/', async (_req, reply) => {
    void reply.type('text/html; charset=utf-8').header('content-security-policy', page.csp);
    return page.html;
  });
  const listCache = deps.listCacheMs
    ? new ListCache<Awaited<ReturnType<GateClient['list']>>>({
        freshMs: deps.listCacheMs,
        maxAgeMs: 10 * deps.listCacheMs,
      })
    : undefined;
  approvalRoutes(app, deps.gate, requireKey, metrics, listCache);
  policyRoutes(app, { requireKey, policy: deps.policy, grants: deps.grants, audit: deps.audit });
  evidenceRoutes(app, deps.gate, requireKey, deps.signing);

  const domains = deps.domains ?? createDomainRegistry([]);
  const temporal = deps.temporal;
  const visibleSessions = async (req: FastifyRequest): Promise<string[]> => {
    if (!temporal)
      throw new GateError(503, 'no_temporal', 'this API process has no Temporal client to scope domain reads');
    return visibleRunIds(temporal, scopeOfRequest(req));
  };
  for (const name of domains.names()) {
    const routes = domains.get(name).routes;
    if (routes)
      await app.register(async (scope) => routes(scope, { requireKey, visibleSessions }), {
        prefix: `/v1/domains/${name}`,
      });
  }
  const extra = deps.extraRoutes;
  if (extra) {
    const ctx: RouteContext = {
      requireKey,
      gate: deps.gate,
      keys: deps.keys,
      audit: deps.audit,
      temporal: deps.temporal,
      db: deps.db,
      domains,
    };
    await app.register(async (scope) => extra(scope, ctx));
  }
}

/** A listening API and how to stop it. */
export interface RunningApi {
  url: string;
  app: FastifyInstance;
  gate: GateClient;
  /** What sheds creates while the workers are behind; its readings show the backlog the API saw. */
  admission: BacklogAdmission;
  /** Stops listening, then closes the Temporal connection and the database. */
  close(): Promise<void>;
}

/** Options of `startApiServer` beyond the configuration. */
export interface StartApiOptions {
  /** The domains runs may use, and whose routes the API mounts (built once over the API's store). */
  domains?: readonly DomainSource[];
  /** Replaces the run routes (`/v1/runs…`). */
  extraRoutes?: ExtraRoutes;
  logger?: FastifyBaseLogger;
  /**
   * The connection of a gate worker in this process (`gate dev`): the API's client uses it,
   * and with GATE_EAGER_START asks for eager starts, so a new gate's first task goes
   * straight to that worker instead of through a poll. The API does not close it; the worker does.
   */
  connection?: NativeConnection;
}

/** What creates are checked against and who is told by default (GATE_NOTIFY). */
function notifyContext(settings: NotifySettings): CreateContext['notify'] {
  return { settings: notifyEnv(settings), defaults: settings.notify ?? [] };
}

/** How often the API finishes audit writes that a caller left behind (GateClient.recoverAuditIntents). */
const INTENT_RECOVERY_MS = 30_000;

/** Runs `recoverAuditIntents` every `ms` (one pass at a time), logging what it wrote or dropped. */
function recoverIntentsEvery(gate: GateClient, logger: FastifyBaseLogger, ms: number): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    gate
      .recoverAuditIntents()
      .then((r) => {
        if (r.written + r.dropped + r.failed > 0) logger.info({ audit_intents: r }, 'audit intents recovered');
      })
      .catch((err: unknown) => logger.warn({ err }, 'audit intent recovery failed'))
      .finally(() => (running = false));
  }, ms);
  timer.unref();
  return timer;
}

/**
 * `gate api` / `gate dev`: connects to Temporal at `temporalAddressOf(cfg)`, opens the
 * store (cfg.databaseUrl, else `<dataDir>/gate.db`), migrates the audit and key tables,
 * builds `opts.domains` and listens on cfg.host:cfg.port with the approval routes, the
 * domains' routes and the run routes (or `opts.extraRoutes`). Throws when Temporal or
 * the port is unavailable.
 */
export async function startApiServer(cfg: GateConfig, opts: StartApiOptions = {}): Promise<RunningApi> {
  // Before anything opens: a bad rule file stops the start with every problem named.
  const policy = cfg.policyFile ? loadPolicyFile(cfg.policyFile) : undefined;
  const signing = SigningKeys.load(signingKeyFilesOf(cfg)); // a bad key file stops the start too
  const db = openDb({ databaseUrl: cfg.databaseUrl, sqliteFile: path.join(cfg.dataDir, 'gate.db') });
  let connection: Connection | undefined;
  try {
    const audit = new AuditStore(db);
    const keys = new KeyStore(db);
    const grants = new GrantStore(db);
    await audit.migrate();
    await keys.migrate();
    await grants.migrate();
    const domains = await resolveDomains(opts.domains ?? [], { db });
    const shared = opts.connection;
    if (!shared) connection = await Connection.connect({ address: temporalAddressOf(cfg) });
    // With tracing on, each start, update, signal and query is a span whose context travels to the workflow.
    const temporal = new Client({
      connection: shared ?? connection,
      namespace: cfg.namespace,
      ...(activeTracing() ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {}),
    });
    // Creates are shed while the workers are behind (GATE_MAX_BACKLOG_S); the API's creates only, never a workflow's.
    const admission = new BacklogAdmission(temporal, {
      taskQueue: cfg.taskQueue,
      namespace: cfg.namespace,
      maxBacklogS: cfg.maxBacklogS ?? DEFAULT_MAX_BACKLOG_S,
    });
    // The workers read the same GATE_WEBHOOK_URLS (one config for API and workers).
    const gate = new GateClient(temporal, {
      admission,
      decisionWaitMs: (cfg.decisionWaitS ?? DEFAULT_DECISION_WAIT_S) * 1000,
      taskQueue: cfg.taskQueue,
      namespace: cfg.namespace,
      audit,
      webhookReceivers: cfg.webhookUrls.length,
      policy,
      grants,
      eagerStart: shared !== undefined && cfg.eagerStart === true,
      // The workers read the same notification settings: creates are checked against them.
      notify: notifyContext(cfg.notify ?? {}),
    });
    const logger =
      opts.logger ?? (pino({ level: process.env.GATE_LOG_LEVEL || 'info' }) as unknown as FastifyBaseLogger);
    const app = createApiServer({
      gate,
      keys,
      audit,
      temporal,
      db,
      domains,
      logger,
      queueDepthTtlMs: cfg.queueDepthTtlMs,
      listCacheMs: cfg.listCacheMs ?? DEFAULT_LIST_CACHE_MS,
      extraRoutes: opts.extraRoutes ?? runRoutes(cfg),
      limits: cfg.httpLimits,
      trustProxy: cfg.trustProxy,
      policy,
      grants,
      signing,
      ...(cfg.oidc ? { oidc: new OidcVerifier(cfg.oidc) } : {}),
    });
    await app.listen({ host: cfg.host, port: cfg.port });
    const addr = app.server.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    const conn = connection;
    const recovery = recoverIntentsEvery(gate, logger, INTENT_RECOVERY_MS);
    return {
      url: `http://${host}:${addr.port}`,
      app,
      gate,
      admission,
      async close() {
        clearInterval(recovery);
        await app.close();
        await conn?.close();
        await db.close();
      },
    };
  } catch (err) {
    await connection?.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw err;
  }
}
