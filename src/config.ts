import path from 'node:path';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './api/http-limits';
import { oidcSettingsFrom, type OidcSettings } from './api/oidc';
import { parseTrustProxy, type TrustProxy } from './api/trust-proxy';
import { notifySettingsFrom, type NotifySettings } from './notify/config';

/** Process configuration, read from the environment (docs/configuration.md). */
export interface GateConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Set: use that Temporal server. Unset: `gate dev` starts one. */
  temporalAddress?: string;
  temporalPort: number;
  temporalUiPort: number;
  namespace: string;
  taskQueue: string;
  webhookUrls: string[];
  webhookSecret?: string;
  /** PostgreSQL URL for the domain, audit and key stores; SQLite in dataDir when unset. */
  databaseUrl?: string;
  /**
   * Workflows a worker keeps in memory (SDK `maxCachedWorkflows`). Bounded so that a
   * queue of any size fits in a fixed amount of memory: a gate that is not cached is
   * rebuilt from its (short) history when a decision arrives.
   */
  workflowCacheSize: number;
  /**
   * GATE_WORKFLOW_STACK_TRACES: capture stacks in workflow code as the SDK does by default
   * (the `__stack_trace` query, frames of errors thrown there). Off by default, for the CPU
   * (src/workflow/internal/stack-frames.ts); when on, a worker bundles its workflows at start.
   */
  workflowStackTraces: boolean;
  /** GATE_POLICY_FILE: the reviewer rule file (JSON or YAML), loaded and validated at start. */
  policyFile?: string;
  /**
   * GATE_EAGER_START (off by default): an API that shares a gate worker's connection
   * (`gate dev`) asks Temporal to hand each new gate's first workflow task straight to
   * that worker in the start's answer, instead of through the task queue. It makes a gate
   * ready a poll sooner and its start cheaper for the server, but a decision that arrives
   * while that first task runs then needs a task of its own, where without it the decision
   * joins the first task; and the create call returns later. Off, `gate dev` creates gates
   * as a separate `gate api` does (bench/results/2026-12-05-eager-create.md).
   * Optional, so that a configuration built by hand before it existed still type-checks.
   */
  eagerStart?: boolean;
  /** GATE_RATE_LIMIT (requests a minute per key) and GATE_AUTH_FAILURE_LIMIT (401s per address in 5 minutes); 0 turns one off. */
  httpLimits: HttpLimits;
  /** GATE_TRUST_PROXY: whose `X-Forwarded-For` names the client address (rate limits, logs); none by default. */
  trustProxy: TrustProxy;
  /** `host:port` of the worker's Prometheus endpoint (`GATE_WORKER_METRICS_ADDRESS`); none when unset. */
  workerMetricsAddress?: string;
  /** How long the API caches the visibility counts behind `gate_queue_depth` (`GATE_METRICS_QUEUE_TTL_MS`). */
  queueDepthTtlMs: number;
  /** GATE_LIST_CACHE_MS: how long the API serves a listing's answer before refreshing it (0: never cached; absent: DEFAULT_LIST_CACHE_MS). */
  listCacheMs?: number;
  /**
   * GATE_MAX_BACKLOG_S: the API sheds creates (503 `gate_busy` with Retry-After) while the
   * oldest workflow task on the gate task queue has waited longer than this; 0 never sheds.
   * Optional, so that a configuration built by hand before it existed still type-checks
   * (absent: DEFAULT_MAX_BACKLOG_S).
   */
  maxBacklogS?: number;
  /**
   * GATE_DECISION_WAIT_S: how long the API waits for a gate to apply a decision before it
   * sends the decision as a signal and answers 202 `decision_accepted` (absent: DEFAULT_DECISION_WAIT_S).
   */
  decisionWaitS?: number;
  /** GATE_OIDC_*: people sign in with ID tokens from this issuer; unset, only API keys authenticate. */
  oidc?: OidcSettings;
  /** GATE_SIGNING_KEY_FILE: the Ed25519 private key (PKCS#8 PEM) that signs evidence bundles. */
  signingKeyFile?: string;
  /** GATE_SIGNING_KEYS_RETIRED_DIR: PEM files of keys that no longer sign, still published so older bundles verify. */
  signingKeysRetiredDir?: string;
  /**
   * GATE_PUBLIC_URL, GATE_SLACK_*, GATE_SMTP_URL, GATE_EMAIL_FROM, GATE_TEAMS_WEBHOOKS, GATE_NOTIFY:
   * the channels that tell reviewers about a gate (docs/notifications.md), checked when read.
   * Optional, so that a configuration built by hand before it existed still type-checks (absent: none).
   */
  notify?: NotifySettings;
}

function count(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name}=${raw} is not a whole number`);
  return n;
}

function seconds(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 86_400)
    throw new Error(`${name}=${raw} is not a number of seconds (0 to 86400)`);
  return n;
}

function int(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new Error(`${name}=${raw} is not a valid port`);
  return n;
}

function flag(name: string, env: NodeJS.ProcessEnv, fallback = false): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (raw === '0' || raw === 'false' || raw === 'off') return false;
  if (raw === '1' || raw === 'true' || raw === 'on') return true;
  throw new Error(`${name}=${env[name]} is not one of 1, true, on, 0, false, off`);
}

/** Default `GATE_WORKFLOW_CACHE_SIZE`: see docs/performance.md for what it costs. */
export const DEFAULT_WORKFLOW_CACHE_SIZE = 500;

/** Default `GATE_LIST_CACHE_MS` (docs/bursts.md). */
export const DEFAULT_LIST_CACHE_MS = 1000;

/** Default `GATE_MAX_BACKLOG_S` (docs/bursts.md). */
export const DEFAULT_MAX_BACKLOG_S = 5;

/** Default `GATE_DECISION_WAIT_S` (docs/bursts.md). */
export const DEFAULT_DECISION_WAIT_S = 10;

/** Reads the configuration. Throws with the variable's name when one is malformed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GateConfig {
  const port = int('GATE_PORT', 8787, env);
  const host = env.GATE_HOST || '127.0.0.1';
  return {
    port,
    host,
    dataDir: path.resolve(env.GATE_DATA_DIR || '.gate-data'),
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalPort: int('GATE_TEMPORAL_PORT', 7233, env),
    temporalUiPort: int('GATE_TEMPORAL_UI_PORT', 8233, env),
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.GATE_TASK_QUEUE || 'approval-gate',
    webhookUrls: (env.GATE_WEBHOOK_URLS || '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    webhookSecret: env.GATE_WEBHOOK_SECRET || undefined,
    databaseUrl: env.GATE_DATABASE_URL || undefined,
    workflowCacheSize: count('GATE_WORKFLOW_CACHE_SIZE', DEFAULT_WORKFLOW_CACHE_SIZE, env),
    workflowStackTraces: flag('GATE_WORKFLOW_STACK_TRACES', env),
    workerMetricsAddress: env.GATE_WORKER_METRICS_ADDRESS || undefined,
    queueDepthTtlMs: count('GATE_METRICS_QUEUE_TTL_MS', 10_000, env),
    policyFile: env.GATE_POLICY_FILE ? path.resolve(env.GATE_POLICY_FILE) : undefined,
    eagerStart: flag('GATE_EAGER_START', env),
    listCacheMs: count('GATE_LIST_CACHE_MS', DEFAULT_LIST_CACHE_MS, env),
    maxBacklogS: seconds('GATE_MAX_BACKLOG_S', DEFAULT_MAX_BACKLOG_S, env),
    decisionWaitS: seconds('GATE_DECISION_WAIT_S', DEFAULT_DECISION_WAIT_S, env),
    httpLimits: {
      requestsPerMinute: count('GATE_RATE_LIMIT', DEFAULT_HTTP_LIMITS.requestsPerMinute, env),
      authFailures: count('GATE_AUTH_FAILURE_LIMIT', DEFAULT_HTTP_LIMITS.authFailures, env),
      authFailureWindowMs: DEFAULT_HTTP_LIMITS.authFailureWindowMs,
    },
    trustProxy: parseTrustProxy(env.GATE_TRUST_PROXY),
    oidc: oidcSettingsFrom(env, { redirectUri: `http://${host}:${port}/auth/callback` }),
    signingKeyFile: env.GATE_SIGNING_KEY_FILE ? path.resolve(env.GATE_SIGNING_KEY_FILE) : undefined,
    signingKeysRetiredDir: env.GATE_SIGNING_KEYS_RETIRED_DIR
      ? path.resolve(env.GATE_SIGNING_KEYS_RETIRED_DIR)
      : undefined,
    // A channel that cannot work stops startup here, naming the missing setting (src/notify/config.ts).
    notify: notifySettingsFrom(env),
  };
}

/** The Temporal address a process should use: TEMPORAL_ADDRESS, or the embedded dev server's port. */
export function temporalAddressOf(cfg: GateConfig): string {
  return cfg.temporalAddress ?? `127.0.0.1:${cfg.temporalPort}`;
}
