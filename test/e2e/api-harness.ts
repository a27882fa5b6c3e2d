import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { HttpLimits } from '../../src/api/http-limits';
import type { TrustProxy } from '../../src/api/trust-proxy';
import { createApiServer } from '../../src/api/server';
import { GateClient } from '../../src/client/gate-client';
import { AuditStore } from '../../src/store/audit-store';
import { openDb, type Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { stackTarget, targetKey, type StackTarget } from '../support/stack-target';
import { storeActivities } from '../support/gate-fixtures';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';
import { OidcVerifier, type OidcSettings } from '../../src/api/oidc';
import type { ReviewerPolicy } from '../../src/policy/reviewer-policy';
import type { SigningKeys } from '../../src/evidence/signing-keys';

/** What a test may change in the API it starts. */
export interface HarnessOptions {
  /** Listen on this port (the OIDC redirect URI names it before the API starts); any free one by default. */
  port?: number;
  /** People sign in with ID tokens from this issuer. */
  oidc?: OidcSettings;
  /** The reviewer rule file the API applies to creates. */
  policy?: ReviewerPolicy;
  /** The API's rate limits; the production defaults when absent. */
  limits?: HttpLimits;
  /** Whose X-Forwarded-For the API believes (GATE_TRUST_PROXY); none when absent. */
  trustProxy?: TrustProxy;
  /** The keys that sign evidence bundles; exports answer 503 without them. */
  signing?: SigningKeys;
  /** GATE_LIST_CACHE_MS; no listing cache when absent. */
  listCacheMs?: number;
}

/** A response as the tests read it. */
export interface Res {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

/** The keys every e2e file uses. `agentAsReviewer` is a reviewer key with the agent's own id. */
export interface Keys {
  agent: string;
  otherAgent: string;
  reviewer: string;
  reviewer2: string;
  agentAsReviewer: string;
}

/**
 * The whole API on a real port: a worker on its own task queue (audit events into the
 * same store the API reads), the gate client, the fastify server and five keys.
 */
export class ApiHarness {
  private constructor(
    readonly url: string,
    readonly keys: Keys,
    readonly gate: GateClient,
    readonly audit: AuditStore,
    readonly client: Client,
    private readonly parts: {
      app?: FastifyInstance;
      worker?: RunningWorker;
      connection: Connection;
      db: Db;
      taskQueue?: string;
    },
  ) {}

  /**
   * In-process by default; in the production suite (GATE_STACK_TARGET set) the same
   * tests drive the stack: its API, its two workers and its PostgreSQL stores. Options
   * that shape the API (port, OIDC, policy) need the in-process one.
   */
  static async start(opts: HarnessOptions = {}): Promise<ApiHarness> {
    const target = stackTarget();
    if (target && Object.keys(opts).length === 0) return ApiHarness.onStack(target);
    const db = openDb({ sqliteFile: ':memory:' });
    const audit = new AuditStore(db);
    await audit.migrate();
    const keyStore = new KeyStore(db);
    await keyStore.migrate();
    const worker = await startTestWorker({
      ...storeActivities(audit),
      recheckSnapshot: async () => ({ ok: false, reason: 'not used by external gates', mismatches: [] }),
      executeTool: async () => {
        throw new Error('not used by external gates');
      },
      reviseToolCall: async () => {
        throw new Error('not used by external gates');
      },
    });
    const { client, connection } = await testClient();
    const gate = new GateClient(client, {
      taskQueue: worker.taskQueue,
      audit,
      webhookReceivers: 0,
      policy: opts.policy,
    });
    const oidc = opts.oidc ? new OidcVerifier(opts.oidc) : undefined;
    const app = createApiServer({
      gate,
      keys: keyStore,
      audit,
      temporal: client,
      oidc,
      limits: opts.limits,
      trustProxy: opts.trustProxy,
      signing: opts.signing,
      listCacheMs: opts.listCacheMs,
    });
    await app.listen({ host: '127.0.0.1', port: opts.port ?? 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const keys: Keys = {
      agent: (await keyStore.create('agent', 'agent-1')).key,
      otherAgent: (await keyStore.create('agent', 'agent-2')).key,
      reviewer: (await keyStore.create('reviewer', 'rev-1')).key,
      reviewer2: (await keyStore.create('reviewer', 'rev-2')).key,
      agentAsReviewer: (await keyStore.create('reviewer', 'agent-1')).key,
    };
    return new ApiHarness(url, keys, gate, audit, client, { app, worker, connection, db });
  }

  private static async onStack(t: StackTarget): Promise<ApiHarness> {
    const db = openDb({ databaseUrl: t.info.database_url, sqliteFile: ':memory:' });
    const audit = new AuditStore(db);
    const { client, connection } = await testClient();
    const gate = new GateClient(client, { taskQueue: t.taskQueue, audit });
    const keys: Keys = {
      agent: targetKey(t, 'agent', 'agent-1'),
      otherAgent: targetKey(t, 'agent', 'agent-2'),
      reviewer: targetKey(t, 'reviewer', 'rev-1'),
      reviewer2: targetKey(t, 'reviewer', 'rev-2'),
      agentAsReviewer: targetKey(t, 'reviewer', 'agent-1'),
    };
    return new ApiHarness(t.info.api_url, keys, gate, audit, client, { connection, db, taskQueue: t.taskQueue });
  }

  /** The task queue the harness's worker (or the stack's workers) polls. */
  get taskQueue(): string {
    return this.parts.worker?.taskQueue ?? this.parts.taskQueue!;
  }

  /** The store the API and the worker share, for tests that reach behind the API's back. */
  get db(): Db {
    return this.parts.db;
  }

  /** A further key (in the default tenant unless given, with these reviewer roles), for tests that need more callers. */
  async createKey(kind: 'agent' | 'reviewer', id: string, tenant?: string, roles?: string[]): Promise<string> {
    return (await new KeyStore(this.parts.db).create(kind, id, { tenant, roles })).key;
  }

  async stop(): Promise<void> {
    await this.parts.app?.close();
    await this.parts.worker?.stop();
    await this.parts.connection.close();
    await this.parts.db.close();
  }

  /** Real HTTP. `body` is sent as JSON; `raw` as is, with a JSON content type. */
  async http(
    method: string,
    path: string,
    opts: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Res> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    const payload = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${this.url}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body, headers: res.headers };
  }

  /** POST /v1/approvals as `agent-1` (or another key). */
  create(body: unknown, opts: { key?: string; idempotencyKey?: string } = {}): Promise<Res> {
    return this.http('POST', '/v1/approvals', {
      key: opts.key ?? this.keys.agent,
      body,
      headers: opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {},
    });
  }

  /** POST /v1/approvals/{id}/decision as `rev-1` (or another key). */
  decide(id: string, body: Record<string, unknown>, key = this.keys.reviewer): Promise<Res> {
    return this.http('POST', `/v1/approvals/${id}/decision`, { key, body });
  }

  consume(id: string, key = this.keys.agent): Promise<Res> {
    return this.http('POST', `/v1/approvals/${id}/consume`, { key });
  }

  get(id: string, key = this.keys.reviewer): Promise<Res> {
    return this.http('GET', `/v1/approvals/${id}`, { key });
  }

  audit_(id: string, key = this.keys.reviewer): Promise<Res> {
    return this.http('GET', `/v1/approvals/${id}/audit`, { key });
  }

  /** Polls `GET /v1/approvals/{id}` until `pred` holds; throws with the last body after `ms`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async waitFor(id: string, pred: (body: any) => boolean, ms = 20_000): Promise<any> {
    const deadline = Date.now() + ms;
    let last: Res | undefined;
    while (Date.now() < deadline) {
      last = await this.get(id);
      if (last.status === 200 && pred(last.body)) return last.body;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`condition not met for ${id}; last: ${JSON.stringify(last?.body)}`);
  }
}

/** A valid create body with a fresh trigger and target; `over` replaces fields. */
export function evidence(over: Record<string, unknown> = {}): Record<string, unknown> {
  const n = randomUUID().slice(0, 8);
  return {
    correlation_id: `corr_${n}`,
    trigger_event_id: `evt_${n}`,
    action: 'stripe.refund.create',
    target: `ch_${n}`,
    summary: 'Full refund for damaged shipment per ticket #4081',
    blast_radius: { amount_cents: 14500, currency: 'usd' },
    args: { charge: `ch_${n}`, amount: 14500, reason: 'damaged', refund_application_fee: false },
    preconditions: { account_status: 'active' },
    ...over,
  };
}
