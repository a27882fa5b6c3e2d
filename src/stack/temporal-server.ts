import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { Client as PgClient } from 'pg';
import { PROJECT_ROOT } from '../dev/temporal-cli';
import { ensureSearchAttributes } from '../worker/search-attributes';
import { databaseExists } from './postgres';
import { isRunning, startDaemon, StopWaiting, tail, until, type Daemon } from './processes';
import {
  DYNAMIC_CONFIG_FILE,
  PG_DATABASES,
  PG_ROLE,
  SCHEMA_DIRS,
  TEMPORAL_SERVER_VERSION,
  databaseUrl,
  temporalAddress,
  type StackSettings,
} from './settings';
import { renderTemporalConfig } from './temporal-config';

/** The built binaries and the module's files, as scripts/install-temporal-server.sh lays them out. */
export interface ServerTools {
  dir: string;
  server: string;
  sqlTool: string;
}

function toolsIn(dir: string): ServerTools {
  return { dir, server: path.join(dir, 'bin', 'temporal-server'), sqlTool: path.join(dir, 'bin', 'temporal-sql-tool') };
}

/** True when the server is built (only the first `gate stack up` on a machine builds it). */
export function serverBuilt(s: Pick<StackSettings, 'toolsDir'>): boolean {
  return fs.existsSync(path.join(s.toolsDir, '.complete'));
}

/** Builds the server from the Go module proxy unless .tools holds it; build output goes to `log`. */
export function ensureServerBuilt(s: Pick<StackSettings, 'toolsDir'>, log: (l: string) => void): ServerTools {
  if (!serverBuilt(s)) {
    log(`temporal: building server ${TEMPORAL_SERVER_VERSION} into ${s.toolsDir} (first run only, ~5 min on 2 cores)`);
    const r = spawnSync('bash', [path.join(PROJECT_ROOT, 'scripts', 'install-temporal-server.sh')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TEMPORAL_SERVER_VERSION },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`building the Temporal server failed (exit ${r.status}); see the lines above`);
  }
  return toolsIn(s.toolsDir);
}

function sqlTool(t: ServerTools, s: Pick<StackSettings, 'pgPort'>, db: string, args: string[]): void {
  const base = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '--port', String(s.pgPort)];
  const auth = ['--user', PG_ROLE.user, '--password', PG_ROLE.password, '--db', db];
  const r = spawnSync(t.sqlTool, [...base, ...auth, ...args], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0)
    throw new Error(`temporal-sql-tool ${args.join(' ')} on ${db} failed (exit ${r.status}):\n${r.stderr}${r.stdout}`);
}

async function hasSchemaVersionTable(s: Pick<StackSettings, 'pgPort'>, db: string): Promise<boolean> {
  const c = new PgClient({ connectionString: databaseUrl(s, db) });
  await c.connect();
  try {
    const r = await c.query<{ t: string | null }>(`SELECT to_regclass('schema_version')::text AS t`);
    return r.rows[0]?.t != null;
  } finally {
    await c.end();
  }
}

/**
 * Temporal's persistence and visibility schemas, as the server's own tool applies them:
 * create-database, setup-schema -v 0.0 (first time only), then update-schema to the
 * module's newest version (idempotent, so a newer server upgrades the schema).
 */
export async function ensureSchemas(t: ServerTools, s: Pick<StackSettings, 'pgPort'>): Promise<void> {
  const targets = [
    [PG_DATABASES.temporal, SCHEMA_DIRS.temporal],
    [PG_DATABASES.visibility, SCHEMA_DIRS.visibility],
  ] as const;
  for (const [db, dir] of targets) {
    if (!(await databaseExists(s, db))) sqlTool(t, s, db, ['create-database']);
    if (!(await hasSchemaVersionTable(s, db))) sqlTool(t, s, db, ['setup-schema', '-v', '0.0']);
    sqlTool(t, s, db, ['update-schema', '--schema-dir', path.join(t.dir, dir)]);
  }
}

/** Writes the server's config (the module's development-postgres12.yaml, ports changed) and returns its path. */
export function writeServerConfig(t: ServerTools, s: Pick<StackSettings, 'dir' | 'temporalPort' | 'pgPort'>): string {
  const moduleYaml = fs.readFileSync(path.join(t.dir, 'config', 'development-postgres12.yaml'), 'utf8');
  const dir = path.join(s.dir, 'temporal');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'config.yaml');
  fs.writeFileSync(
    file,
    renderTemporalConfig(moduleYaml, {
      temporalPort: s.temporalPort,
      pgPort: s.pgPort,
      dynamicConfigFile: DYNAMIC_CONFIG_FILE,
    }),
  );
  return file;
}

/** Starts the server detached; its log is GATE_DATA_DIR/stack/logs/temporal.log. */
export function startServerProcess(t: ServerTools, s: Pick<StackSettings, 'dir'>, configFile: string): Daemon {
  return startDaemon(t.server, ['--config-file', configFile, '--allow-no-auth', 'start'], {
    env: { ...process.env },
    log: path.join(s.dir, 'logs', 'temporal.log'),
  });
}

/** Waits until the frontend answers and `namespace` exists and serves requests; registers it and the search attributes. */
export async function prepareNamespace(
  s: Pick<StackSettings, 'temporalPort' | 'namespace'>,
  d: Daemon,
  timeoutMs = 120_000,
): Promise<void> {
  const address = temporalAddress(s);
  const connection = await until(
    `the Temporal server at ${address} did not answer`,
    async () => {
      // By pid, not by name: see waitForLogLine.
      if (!isRunning(d.pid)) throw new StopWaiting(`the server exited; its log ends:\n${tail(d.log)}`);
      const c = await Connection.connect({ address, connectTimeout: 1000 });
      await c.workflowService.getSystemInfo({});
      return c;
    },
    timeoutMs,
    500,
  );
  try {
    await until(
      `namespace ${s.namespace} could not be registered`,
      async () => {
        try {
          await connection.workflowService.describeNamespace({ namespace: s.namespace });
          return true;
        } catch {
          await connection.workflowService.registerNamespace({
            namespace: s.namespace,
            workflowExecutionRetentionPeriod: msToTs('3 days'),
          });
          return true;
        }
      },
      timeoutMs,
      1000,
    );
    // A new namespace reaches the frontend's cache only after its refresh interval.
    await until(
      `namespace ${s.namespace} did not serve requests`,
      async () => {
        await connection.workflowService.countWorkflowExecutions({ namespace: s.namespace, query: '' });
        return true;
      },
      timeoutMs,
      1000,
    );
  } finally {
    await connection.close();
  }
  await until(
    'the gate search attributes could not be registered',
    async () => (await ensureSearchAttributes(address, s.namespace), true),
    timeoutMs,
    1000,
  );
}
