import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundlerOptions } from '../worker/bundle-options';
import { PROJECT_ROOT } from '../dev/temporal-cli';
import { postgresAnswers, postgresPid, startPostgres, stopPostgres, ensureRoleAndGateDb } from './postgres';
import { isRunning, startDaemon, stopDaemon, waitForLogLine, type Daemon } from './processes';
import { STACK_WORKERS, databaseUrl, gateProcessEnv, temporalAddress, type StackSettings } from './settings';
import {
  ensureSchemas,
  ensureServerBuilt,
  prepareNamespace,
  startServerProcess,
  writeServerConfig,
  type ServerTools,
} from './temporal-server';

/** What `gate stack up --json` prints (docs/production.md); also kept in GATE_DATA_DIR/stack/state.json. */
export interface StackInfo {
  api_url: string;
  temporal_address: string;
  database_url: string;
  ui_address?: string;
  pids: { postgres: number; temporal: number; workers: number[]; api: number };
}

/** Names each process's command line must contain before the stack signals it (a reused pid is left alone). */
export const PROCESS_NAMES = { postgres: 'postgres', temporal: 'temporal-server', gate: 'gate.js' } as const;

const GATE_BIN = path.join(PROJECT_ROOT, 'bin', 'gate.js');

function stateFile(s: StackSettings): string {
  return path.join(s.dir, 'state.json');
}

export function readState(s: StackSettings): StackInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile(s), 'utf8')) as StackInfo;
  } catch {
    return undefined;
  }
}

export function writeState(s: StackSettings, info: StackInfo): void {
  fs.writeFileSync(stateFile(s), `${JSON.stringify(info, null, 2)}\n`);
}

export function logFile(s: StackSettings, name: string): string {
  return path.join(s.dir, 'logs', `${name}.log`);
}

/** The gate's own variables of the environment `up` ran in (webhooks, providers, telemetry, test hooks). */
const KEPT_ENV = /^(GATE_|TEMPORAL_|OPENAI_|ANTHROPIC_|OTEL_)/;

function envFile(s: StackSettings): string {
  return path.join(s.dir, 'env.json');
}

/**
 * The environment every gate process of the stack runs with: the gate variables `up`
 * saw (kept in GATE_DATA_DIR/stack/env.json, so a process restarted later, by the chaos
 * program or by hand, gets the same), then the stack's own settings.
 */
export function gateEnv(s: StackSettings, bundle: string | undefined): NodeJS.ProcessEnv {
  let kept: Record<string, string> = {};
  try {
    kept = JSON.parse(fs.readFileSync(envFile(s), 'utf8')) as Record<string, string>;
  } catch {
    /* not written yet: this is `up` itself */
  }
  const env = { ...process.env, ...kept };
  return { ...env, ...gateProcessEnv(s, env), ...(bundle ? { GATE_WORKFLOW_BUNDLE: bundle } : {}) };
}

function keepEnv(s: StackSettings): void {
  const kept = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => KEPT_ENV.test(k) && v !== undefined));
  fs.writeFileSync(envFile(s), `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 }); // may hold provider keys
}

/**
 * The workflow bundle the workers load: the built one (`npm run build`) when the CLI runs
 * from dist/, else one bundled from source once per `up`, so two workers (and every
 * restart) do not each bundle at start.
 */
async function workflowBundle(s: StackSettings, log: (l: string) => void): Promise<string | undefined> {
  const built = path.join(PROJECT_ROOT, 'dist', 'src', 'workflow-bundle.js');
  if (fs.existsSync(built) && process.env.GATE_CLI_FROM_SOURCE !== '1') return undefined;
  log('workers: bundling the workflow code');
  const silent = (): void => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflow/bundle-entry'),
    ...workflowBundlerOptions(),
    logger: { log: silent, trace: silent, debug: silent, info: silent, warn: silent, error: (m) => log(m) },
  });
  const file = path.join(s.dir, 'workflow-bundle.js');
  fs.writeFileSync(file, code);
  return file;
}

/** Starts one worker process (`gate worker`) and waits until it polls. */
export async function startWorker(s: StackSettings, index: number, timeoutMs = 120_000): Promise<number> {
  const env = gateEnv(s, bundleOf(s));
  // Two workers cannot share one Prometheus port: worker N takes the given port + N - 1.
  const metrics = /^(.*):(\d+)$/.exec(env.GATE_WORKER_METRICS_ADDRESS ?? '');
  if (metrics) env.GATE_WORKER_METRICS_ADDRESS = `${metrics[1]}:${Number(metrics[2]) + index}`;
  const d = startDaemon(process.execPath, [GATE_BIN, 'worker'], {
    env,
    log: logFile(s, `worker-${index + 1}`),
    cwd: PROJECT_ROOT,
  });
  await readyOrStopped(d, waitForLogLine(d, 'worker: polling', PROCESS_NAMES.gate, timeoutMs));
  return d.pid;
}

function bundleOf(s: StackSettings): string | undefined {
  const f = path.join(s.dir, 'workflow-bundle.js');
  return fs.existsSync(f) ? f : undefined;
}

/** Starts the API process (`gate api`) and waits until it listens. */
export async function startApi(s: StackSettings, timeoutMs = 60_000): Promise<number> {
  const d = startDaemon(process.execPath, [GATE_BIN, 'api', '--json'], {
    env: gateEnv(s, undefined),
    log: logFile(s, 'api'),
    cwd: PROJECT_ROOT,
  });
  await readyOrStopped(d, waitForLogLine(d, '"url"', PROCESS_NAMES.gate, timeoutMs));
  return d.pid;
}

/** A process that never got ready is stopped, so a failed start leaves nothing behind. */
async function readyOrStopped(d: Daemon, ready: Promise<unknown>): Promise<void> {
  try {
    await ready;
  } catch (err) {
    await stopDaemon(d.pid, PROCESS_NAMES.gate, 'SIGKILL').catch(() => undefined);
    throw err;
  }
}

/** Starts the Temporal server on the prepared schema and waits until its namespace serves. */
export async function startTemporal(s: StackSettings, tools: ServerTools, timeoutMs = 120_000): Promise<Daemon> {
  const d = startServerProcess(tools, s, writeServerConfig(tools, s));
  try {
    await prepareNamespace(s, d, timeoutMs);
  } catch (err) {
    await stopDaemon(d.pid, PROCESS_NAMES.temporal, 'SIGKILL').catch(() => undefined);
    throw err;
  }
  return d;
}

/** Every recorded process that is still alive, by role. */
export function liveProcesses(info: StackInfo | undefined): { role: string; pid: number; alive: boolean }[] {
  if (!info) return [];
  return [
    { role: 'postgres', pid: info.pids.postgres, alive: isRunning(info.pids.postgres, PROCESS_NAMES.postgres) },
    { role: 'temporal', pid: info.pids.temporal, alive: isRunning(info.pids.temporal, PROCESS_NAMES.temporal) },
    ...info.pids.workers.map((pid, i) => ({
      role: `worker-${i + 1}`,
      pid,
      alive: isRunning(pid, PROCESS_NAMES.gate),
    })),
    { role: 'api', pid: info.pids.api, alive: isRunning(info.pids.api, PROCESS_NAMES.gate) },
  ];
}

/**
 * `gate stack up`: PostgreSQL, the schemas, the Temporal server with its namespace and
 * search attributes, two workers and the API, all detached; returns the state it wrote.
 * A stack that already runs whole is returned as it is; a partial one is refused.
 */
export async function stackUp(s: StackSettings, log: (l: string) => void): Promise<StackInfo> {
  const previous = readState(s);
  const procs = liveProcesses(previous);
  if (previous && procs.every((p) => p.alive)) {
    log('stack: already running');
    return previous;
  }
  if (procs.some((p) => p.alive))
    throw new Error(
      `part of the stack in ${s.dir} still runs (${procs
        .filter((p) => p.alive)
        .map((p) => `${p.role} ${p.pid}`)
        .join(', ')}); run \`gate stack down\` first`,
    );
  fs.mkdirSync(path.join(s.dir, 'logs'), { recursive: true });
  keepEnv(s);
  const tools = ensureServerBuilt(s, log);

  log(`postgres: starting on 127.0.0.1:${s.pgPort} (data in ${path.join(s.dir, 'pg')})`);
  const pg = startPostgres(s, log);
  const started: { pid: number; name: string }[] = [];
  try {
    await ensureRoleAndGateDb(s);
    log('temporal: applying the persistence and visibility schemas');
    await ensureSchemas(tools, s);
    log(`temporal: starting server on ${temporalAddress(s)}`);
    const temporal = await startTemporal(s, tools);
    started.push({ pid: temporal.pid, name: PROCESS_NAMES.temporal });
    await workflowBundle(s, log);
    const workers: number[] = [];
    // One after the other: each migrates the gate's stores at start.
    for (let i = 0; i < STACK_WORKERS; i++) {
      log(`worker-${i + 1}: starting`);
      const pid = await startWorker(s, i);
      started.push({ pid, name: PROCESS_NAMES.gate });
      workers.push(pid);
    }
    log('api: starting');
    const api = await startApi(s);
    started.push({ pid: api, name: PROCESS_NAMES.gate });
    const info: StackInfo = {
      api_url: `http://${s.apiHost}:${s.apiPort}`,
      temporal_address: temporalAddress(s),
      database_url: databaseUrl(s),
      pids: { postgres: pg, temporal: temporal.pid, workers, api },
    };
    writeState(s, info);
    return info;
  } catch (err) {
    for (const p of started.reverse()) await stopDaemon(p.pid, p.name).catch(() => undefined);
    try {
      stopPostgres(s);
    } catch {
      /* the original error matters more */
    }
    throw err;
  }
}

/** `gate stack down`: the API, the workers, the server, then PostgreSQL (data kept for the next `up`). */
export async function stackDown(s: StackSettings, log: (l: string) => void): Promise<string[]> {
  const info = readState(s);
  const stopped: string[] = [];
  if (info) {
    for (const p of liveProcesses(info).reverse()) {
      if (!p.alive || p.role === 'postgres') continue;
      log(`${p.role}: stopping pid ${p.pid}`);
      await stopDaemon(p.pid, p.role === 'temporal' ? PROCESS_NAMES.temporal : PROCESS_NAMES.gate);
      stopped.push(p.role);
    }
  }
  if (postgresPid(s) && isRunning(postgresPid(s), PROCESS_NAMES.postgres)) {
    log('postgres: stopping');
    stopPostgres(s);
    stopped.push('postgres');
  }
  return stopped;
}

export interface StackStatus {
  running: boolean;
  info?: StackInfo;
  processes: { role: string; pid: number; alive: boolean }[];
  postgres_answers: boolean;
  api_answers: boolean;
}

/** `gate stack status`: each recorded process and whether PostgreSQL and the API answer. */
export async function stackStatus(s: StackSettings): Promise<StackStatus> {
  const info = readState(s);
  const processes = liveProcesses(info);
  const postgres_answers = await postgresAnswers(s);
  let api_answers = false;
  if (info) {
    try {
      api_answers = (await fetch(`${info.api_url}/healthz`, { signal: AbortSignal.timeout(3000) })).ok;
    } catch {
      api_answers = false;
    }
  }
  const running = processes.length > 0 && processes.every((p) => p.alive) && postgres_answers && api_answers;
  return { running, info, processes, postgres_answers, api_answers };
}
