import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const WORKER_ENTRY = path.join(ROOT, 'src', 'worker', 'create-gate-worker.ts');
const READY_LINE = 'worker: polling';

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A `node src/worker/create-gate-worker.ts` process, as a crash test drives it. */
export interface WorkerProcess {
  readonly pid: number;
  readonly taskQueue: string;
  /** Resolves when the process has exited, however it ended. */
  readonly exited: Promise<Exit>;
  /** Its stdout and stderr so far, for failure messages. */
  output(): string;
  /** Sends `signal` (default SIGKILL: no shutdown hooks, no drain) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<Exit>;
}

export interface SpawnWorkerOptions {
  /** GATE_DATA_DIR: the worker's `gate.db` (audit, keys, trip store) lives here. */
  dataDir: string;
  /** GATE_TASK_QUEUE; one per test so workers of other files never take its tasks. */
  taskQueue: string;
  /** TEMPORAL_ADDRESS; the suite's dev server by default. */
  temporalAddress?: string;
  /** Extra environment (e.g. the crash hook's marker file). */
  env?: Record<string, string>;
  readyTimeoutMs?: number;
}

const live = new Set<ChildProcess>();

/** A task queue no other test uses. */
export function uniqueTaskQueue(prefix = 'crash'): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * Spawns a real worker process (`node --import tsx src/worker/create-gate-worker.ts`) with the prebuilt
 * workflow bundle and resolves once it prints its "worker: polling" line. Throws with
 * the process's output when it exits or stays silent first.
 */
export async function spawnWorker(o: SpawnWorkerOptions): Promise<WorkerProcess> {
  const address = o.temporalAddress ?? process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('spawnWorker: no TEMPORAL_ADDRESS (is the jest globalSetup running?)');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: address,
    GATE_TASK_QUEUE: o.taskQueue,
    GATE_DATA_DIR: o.dataDir,
    ...(process.env.GATE_TEST_WORKFLOW_BUNDLE ? { GATE_WORKFLOW_BUNDLE: process.env.GATE_TEST_WORKFLOW_BUNDLE } : {}),
    ...o.env,
  };
  // node itself, not npx or the tsx CLI: the pid we kill is the worker, with no wrapper in between.
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_ENTRY], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  let stderr = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker on ${o.taskQueue} did not poll within ${o.readyTimeoutMs ?? 30_000} ms:\n${out}`)),
      o.readyTimeoutMs ?? 30_000,
    );
    child.stderr!.on('data', (b: Buffer) => {
      const s = b.toString();
      out += s;
      stderr += s;
      if (stderr.includes(READY_LINE)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`worker on ${o.taskQueue} exited (${JSON.stringify(e)}) before it polled:\n${out}`));
    });
  });
  try {
    await ready;
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    pid: child.pid!,
    taskQueue: o.taskQueue,
    exited,
    output: () => out,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** SIGKILLs every worker process this file spawned that is still alive; for afterAll. */
export async function killLeftoverWorkers(): Promise<void> {
  const waits = [...live].map((c) => {
    if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
    const done = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill('SIGKILL');
    return done;
  });
  await Promise.all(waits);
}
