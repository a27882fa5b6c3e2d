import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { brandErrorClass, UnavailableError } from '../common/errors';

/** A process the stack started and left running on its own (detached, output in a log file). */
export interface Daemon {
  pid: number;
  log: string;
  /** Size of the log before this start: a restart appends, and only its own lines count. */
  logOffset: number;
}

/**
 * Starts `cmd` detached from this process (its own process group, stdio to `log`), so it
 * outlives `gate stack up`. Resolves once it is spawned; readiness is the caller's check.
 */
export function startDaemon(cmd: string, args: string[], o: { env: NodeJS.ProcessEnv; log: string; cwd?: string }) {
  const logOffset = fs.existsSync(o.log) ? fs.statSync(o.log).size : 0;
  const fd = fs.openSync(o.log, 'a');
  try {
    const child = spawn(cmd, args, { env: o.env, cwd: o.cwd, detached: true, stdio: ['ignore', fd, fd] });
    if (child.pid === undefined) throw new Error(`could not start ${cmd}`);
    child.unref();
    return { pid: child.pid, log: o.log, logOffset } satisfies Daemon;
  } finally {
    fs.closeSync(fd);
  }
}

/** True while `pid` names a live process whose command line contains `expect` (a reused pid is not ours). */
export function isRunning(pid: number | undefined, expect?: string): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (/^\d+ \(.*\) Z /.test(stat)) return false; // a zombie has exited
    if (!expect) return true;
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(expect);
  } catch {
    return !expect; // no /proc: trust kill(0) unless the caller needs the name checked
  }
}

/** Sends `signal` to the process if it is ours and alive, waits up to `graceMs`, then SIGKILLs it. */
export async function stopDaemon(pid: number, expect: string, signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000) {
  if (!isRunning(pid, expect)) return;
  process.kill(pid, signal);
  const deadline = Date.now() + graceMs;
  while (isRunning(pid, expect) && Date.now() < deadline) await sleep(100);
  if (isRunning(pid, expect)) {
    process.kill(pid, 'SIGKILL');
    while (isRunning(pid, expect)) await sleep(50);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Thrown by an `until` check to stop waiting at once (the process it waits for has exited). */
export class StopWaiting extends UnavailableError {}
brandErrorClass(StopWaiting, 'StopWaiting');

/**
 * Polls `check` until it returns a value (not undefined), or throws `what` with the last
 * error after `timeoutMs`. A StopWaiting from `check` ends the wait at once.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      if (err instanceof StopWaiting) throw new Error(`${what}: ${err.message}`);
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what} (waited ${timeoutMs} ms)${last ? `: ${last instanceof Error ? last.message : String(last)}` : ''}`,
      );
    await sleep(everyMs);
  }
}

/** The last `lines` lines of a log file, for error messages. */
export function tail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Waits until the log file contains `needle`, failing early if the process exits. */
export async function waitForLogLine(d: Daemon, needle: string, expect: string, timeoutMs: number): Promise<string> {
  return until(
    `${expect} (pid ${d.pid}) did not print "${needle}"`,
    async () => {
      const text = fs.existsSync(d.log) ? fs.readFileSync(d.log).subarray(d.logOffset).toString('utf8') : '';
      if (text.includes(needle)) return text;
      // Not by command line: right after the spawn, before the child's exec, /proc still
      // shows the parent's command line, and a loaded machine widens that window.
      if (!isRunning(d.pid)) throw new StopWaiting(`it exited; its log ends:\n${tail(d.log)}`);
      return undefined;
    },
    timeoutMs,
    200,
  );
}
