import path from 'node:path';
import { PROJECT_ROOT } from '../dev/temporal-cli';

/**
 * The production layout's settings (docs/production.md), shared by `gate stack` and
 * checked against docker-compose.yml by test/unit/stack-compose.test.ts, so the two
 * describe one deployment.
 */
export const TEMPORAL_SERVER_VERSION = '1.32.2';

/** PostgreSQL role and databases: Temporal's two, and the gate's own stores. */
export const PG_ROLE = { user: 'temporal', password: 'temporal' } as const;
export const PG_DATABASES = { temporal: 'temporal', visibility: 'temporal_visibility', gate: 'gate' } as const;

/** Schema directories inside the server module, applied by the sql tool's update-schema. */
export const SCHEMA_DIRS = {
  temporal: 'schema/postgresql/v12/temporal/versioned',
  visibility: 'schema/postgresql/v12/visibility/versioned',
} as const;

/** The project's dynamic config for the server, mounted by docker-compose.yml too. */
export const DYNAMIC_CONFIG_FILE = path.join(PROJECT_ROOT, 'deploy', 'temporal', 'dynamicconfig.yaml');

/**
 * PostgreSQL's server settings in the stack, given at every start (and as the compose
 * file's postgresql command); GATE_STACK_PG_SETTINGS adds to or overrides them. PostgreSQL
 * ships sized for a small shared machine (128 MB of shared buffers, a checkpoint at every
 * 1 GB of WAL). Temporal's SQL visibility table carries some sixty indexes, so at 100,000
 * gates it held 1.8 GB, and every visibility write touched a page of each: see
 * bench/results/2026-12-05-postgres-settings.md.
 */
export const PG_SERVER_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '1GB',
  max_wal_size: '8GB',
  checkpoint_timeout: '15min',
  wal_compression: 'lz4',
};

const PG_SETTING = /^([a-z_]+)=([A-Za-z0-9._]+)$/;

/** PG_SERVER_SETTINGS with GATE_STACK_PG_SETTINGS (space-separated name=value) over them. */
export function pgServerSettings(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = { ...PG_SERVER_SETTINGS };
  for (const entry of (raw ?? '').split(/\s+/).filter(Boolean)) {
    const m = PG_SETTING.exec(entry);
    if (!m) throw new Error(`GATE_STACK_PG_SETTINGS: "${entry}" is not name=value (letters, digits, . and _)`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

/** How many worker processes the stack runs. */
export const STACK_WORKERS = 2;

/**
 * The environment variables the gate processes read, as the stack sets them. The
 * compose file's worker and api services set the same names.
 */
export const GATE_PROCESS_ENV = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'GATE_TASK_QUEUE',
  'GATE_DATABASE_URL',
  'GATE_WEBHOOK_URLS',
  'GATE_WEBHOOK_SECRET',
] as const;

export interface StackSettings {
  /** GATE_DATA_DIR/stack: PostgreSQL data, server config, logs, the state file. */
  dir: string;
  apiPort: number;
  apiHost: string;
  temporalPort: number;
  pgPort: number;
  namespace: string;
  taskQueue: string;
  /** Where the server binaries live (.tools/temporal-server-<version>). */
  toolsDir: string;
  /** PostgreSQL's server settings (`pgServerSettings`). */
  pgSettings: Record<string, string>;
}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new Error(`${name}=${raw} is not a valid port`);
  return n;
}

/** Reads the stack's settings from the environment (GATE_DATA_DIR, GATE_PORT, GATE_STACK_*). */
export function stackSettings(env: NodeJS.ProcessEnv = process.env): StackSettings {
  const temporalPort = port(env, 'GATE_STACK_TEMPORAL_PORT', 7633);
  // The server's other services take the ten ports above the frontend's (see temporal-config.ts),
  // and Temporal stores membership ports in a SQL smallint: all must stay below 32768.
  if (temporalPort + 10 > 32767)
    throw new Error(`GATE_STACK_TEMPORAL_PORT=${temporalPort}: it and the ten ports above it must be below 32768`);
  return {
    dir: path.join(path.resolve(env.GATE_DATA_DIR || '.gate-data'), 'stack'),
    apiPort: port(env, 'GATE_PORT', 8787),
    apiHost: env.GATE_HOST || '127.0.0.1',
    temporalPort,
    pgPort: port(env, 'GATE_STACK_PG_PORT', 55432),
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.GATE_TASK_QUEUE || 'approval-gate',
    toolsDir: path.join(PROJECT_ROOT, '.tools', `temporal-server-${TEMPORAL_SERVER_VERSION}`),
    pgSettings: pgServerSettings(env.GATE_STACK_PG_SETTINGS),
  };
}

/** The URL of a database on the stack's PostgreSQL. */
export function databaseUrl(s: Pick<StackSettings, 'pgPort'>, db: string = PG_DATABASES.gate): string {
  return `postgresql://${PG_ROLE.user}:${PG_ROLE.password}@127.0.0.1:${s.pgPort}/${db}`;
}

export function temporalAddress(s: Pick<StackSettings, 'temporalPort'>): string {
  return `127.0.0.1:${s.temporalPort}`;
}

/** The GATE_PROCESS_ENV values of the stack's workers and API (the API adds its port and host). */
export function gateProcessEnv(
  s: StackSettings,
  env: NodeJS.ProcessEnv = process.env,
): Record<(typeof GATE_PROCESS_ENV)[number] | 'GATE_PORT' | 'GATE_HOST', string> {
  return {
    TEMPORAL_ADDRESS: temporalAddress(s),
    TEMPORAL_NAMESPACE: s.namespace,
    GATE_TASK_QUEUE: s.taskQueue,
    GATE_DATABASE_URL: databaseUrl(s),
    GATE_WEBHOOK_URLS: env.GATE_WEBHOOK_URLS ?? '',
    GATE_WEBHOOK_SECRET: env.GATE_WEBHOOK_SECRET ?? '',
    GATE_PORT: String(s.apiPort),
    GATE_HOST: s.apiHost,
  };
}
