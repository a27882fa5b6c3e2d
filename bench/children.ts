// Every child process the bench starts is registered here, so `finally` blocks and the
// SIGINT/SIGTERM handler can stop exactly those (by pid, never by name).
import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();

const alive = (c: ChildProcess): boolean => c.exitCode === null && c.signalCode === null;

/** Tracks `child` until it exits. */
export function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Sends `signal`, waits up to `graceMs`, then SIGKILLs. Resolves once the child has exited. */
export async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 10_000,
): Promise<void> {
  if (!alive(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => alive(child) && child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Stops every tracked child that is still running. */
export async function stopAllChildren(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  await Promise.all([...live].map((c) => stopChild(c, signal, 5000)));
}

/**
 * On SIGINT/SIGTERM: stop the children (the Temporal dev server, the worker process),
 * run `cleanup` (best effort), and exit 130. A second signal exits at once.
 */
export function stopChildrenOnSignal(cleanup: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (stopping) process.exit(130);
    stopping = true;
    console.error(`bench: ${sig}, stopping child processes`);
    void Promise.race([
      Promise.allSettled([stopAllChildren(), cleanup()]),
      new Promise((r) => setTimeout(r, 15_000)),
    ]).finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
