import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_NAMES } from '../common/search-attributes';
import { StopWaiting, until } from '../stack/processes';

/** The repository root (where package.json and scripts/ live). */
export const PROJECT_ROOT = path.resolve(
  __dirname,
  '..',
  '..',
  fs.existsSync(path.resolve(__dirname, '..', '..', 'package.json')) ? '' : '..',
);

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/**
 * Finds the Temporal CLI: TEMPORAL_CLI_PATH, a `temporal` on PATH, then the project's
 * `.tools/temporal/bin/temporal`; installs the pinned one when none is found.
 * Throws with what to do when it cannot.
 */
export function ensureTemporalCli(): string {
  const explicit = process.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (fs.existsSync(explicit)) return explicit;
    throw new Error(`TEMPORAL_CLI_PATH=${explicit} does not exist`);
  }
  const local = path.join(PROJECT_ROOT, '.tools', 'temporal', 'bin', 'temporal');
  const found = onPath('temporal') ?? (fs.existsSync(local) ? local : undefined);
  if (found) return found;
  const r = spawnSync('bash', [path.join(PROJECT_ROOT, 'scripts', 'install-temporal.sh')], { stdio: 'inherit' });
  if (r.status === 0 && fs.existsSync(local)) return local;
  throw new Error(
    'The Temporal CLI is missing and could not be installed. Run `npm run setup`, or set TEMPORAL_CLI_PATH to a `temporal` binary.',
  );
}

export interface DevServerOptions {
  port: number;
  uiPort?: number;
  /** SQLite file; state survives restarts. In memory when absent. */
  dbFile?: string;
  headless?: boolean;
  namespace?: string;
  /** Where the server's own log goes; inherited stdio when absent. */
  logFile?: string;
  /** Port of the server's Prometheus `/metrics` endpoint; the CLI picks a random one when absent. */
  metricsPort?: number;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * How long the server keeps a task queue's backlog statistics before it reads them again
 * (`matching.TaskQueueInfoByBuildIdTTL`, 5 s by default): the API sheds creates by the
 * backlog's age (src/api/backlog-monitor.ts), and a reading 5 s old lets the backlog run
 * past GATE_MAX_BACKLOG_S by as much. The same value is in deploy/temporal/dynamicconfig.yaml.
 */
export const BACKLOG_STATS_TTL = '1s';

/** Arguments for `temporal server start-dev`, registering the gate's search attributes. */
export function devServerArgs(o: DevServerOptions): string[] {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(o.port), '--log-level', 'warn'];
  if (o.dbFile) {
    // Write-ahead log: one append and one fsync per commit instead of a rollback journal's
    // copy and two, and a killed server loses no commit (test/integration/crash-gate.test.ts).
    // Gates were created 1.75x as fast (bench/results/2026-12-02-dev-server-wal.md).
    args.push('--db-filename', o.dbFile, '--sqlite-pragma', 'journal_mode=wal');
  }
  if (o.headless) args.push('--headless');
  else args.push('--ui-port', String(o.uiPort ?? o.port + 1000), '--ui-disable-news-fetch');
  if (o.namespace && o.namespace !== 'default') args.push('--namespace', o.namespace);
  if (o.metricsPort !== undefined) args.push('--metrics-port', String(o.metricsPort));
  for (const name of Object.values(SEARCH_ATTRIBUTE_NAMES)) args.push('--search-attribute', `${name}=Keyword`);
  // The dev server turns this on; its attributes are registered above, before it serves, so
  // no cache can miss them, and with it on every listed row re-reads the attribute metadata.
  args.push('--dynamic-config-value', 'system.forceSearchAttributesCacheRefreshOnRead=false');
  args.push('--dynamic-config-value', `matching.TaskQueueInfoByBuildIdTTL="${BACKLOG_STATS_TTL}"`);
  return args;
}

/** Waits until a Temporal frontend answers, or throws after `timeoutMs` (at once when `exited` says the server is gone). */
export async function waitForTemporal(address: string, timeoutMs = 60_000, exited?: () => boolean): Promise<void> {
  await until(
    `Temporal at ${address} did not become ready`,
    async () => {
      if (exited?.()) throw new StopWaiting(`the Temporal dev server exited before it was ready`);
      const c = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await c.workflowService.getSystemInfo({});
        return true;
      } finally {
        await c.close();
      }
    },
    timeoutMs,
    300,
  );
}

/** Starts `temporal server start-dev` and resolves once it answers. */
export async function startDevServer(o: DevServerOptions): Promise<DevServer> {
  const cli = ensureTemporalCli();
  if (o.dbFile) fs.mkdirSync(path.dirname(o.dbFile), { recursive: true });
  const out = o.logFile ? fs.openSync(o.logFile, 'a') : 'inherit';
  const child = spawn(cli, devServerArgs(o), { stdio: ['ignore', out, out] });
  let exited = false;
  const exitP = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const address = `127.0.0.1:${o.port}`;
  try {
    await waitForTemporal(address, 60_000, () => exited);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    address,
    uiUrl: o.headless ? undefined : `http://127.0.0.1:${o.uiPort ?? o.port + 1000}`,
    process: child,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (exited) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exitP;
      clearTimeout(timer);
    },
  };
}
