// The gate worker as a separate process (`node bin/gate.js worker`), so the pending
// section can read its memory from /proc.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { stopChild, track } from './children';

const ROOT = path.resolve(__dirname, '..');
const READY_LINE = 'worker: polling task queue';

export interface WorkerProcess {
  pid: number;
  /** Its stderr so far (the tail), for error messages. */
  output(): string;
  /** True once it has exited. */
  exited(): boolean;
  stop(): Promise<void>;
}

/**
 * Spawns `node bin/gate.js worker` with `env` (TEMPORAL_ADDRESS, GATE_DATA_DIR,
 * GATE_TASK_QUEUE, ...) and resolves once it prints its ready line. The source is used
 * (GATE_CLI_FROM_SOURCE=1) unless the caller's environment says otherwise, so a stale
 * dist/ never stands in for the checkout under test. Throws with its output when it
 * exits or stays silent for `readyTimeoutMs`.
 */
export async function spawnWorkerProcess(env: NodeJS.ProcessEnv, readyTimeoutMs = 180_000): Promise<WorkerProcess> {
  const child = track(
    spawn(process.execPath, [path.join(ROOT, 'bin', 'gate.js'), 'worker'], {
      cwd: ROOT,
      env: { GATE_CLI_FROM_SOURCE: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  let out = '';
  let done = false;
  child.once('exit', () => (done = true));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gate worker did not poll within ${readyTimeoutMs} ms:\n${out}`)),
      readyTimeoutMs,
    );
    child.stderr!.on('data', (b: Buffer) => {
      out = (out + b.toString()).slice(-20_000);
      if (out.includes(READY_LINE)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`gate worker exited (code ${code}, signal ${signal}) before it polled:\n${out}`));
    });
  }).catch(async (err) => {
    await stopChild(child, 'SIGKILL');
    throw err;
  });
  return { pid: child.pid!, output: () => out, exited: () => done, stop: () => stopChild(child, 'SIGTERM', 20_000) };
}
