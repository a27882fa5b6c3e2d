import { postgresPid, startPostgres, stopPostgres } from './postgres';
import { isRunning } from './processes';
import type { StackSettings } from './settings';
import { PROCESS_NAMES, readState, startTemporal, startWorker, writeState, type StackInfo } from './stack';
import { ensureServerBuilt } from './temporal-server';

/**
 * Faults and restarts of single stack processes, for the production suite and the chaos
 * program. Every restart records the new pid in the state file, so `gate stack status`
 * and `gate stack down` keep working on the stack afterwards.
 */
export function currentState(s: StackSettings): StackInfo {
  const info = readState(s);
  if (!info) throw new Error(`no stack state in ${s.dir}; run gate stack up first`);
  return info;
}

async function sigkill(pid: number, name: string): Promise<void> {
  if (!isRunning(pid, name)) return;
  process.kill(pid, 'SIGKILL');
  while (isRunning(pid, name)) await new Promise((r) => setTimeout(r, 20));
}

/** SIGKILLs worker `index` (0-based): no shutdown hook, no drain. */
export async function killWorker(s: StackSettings, index: number): Promise<number> {
  const pid = currentState(s).pids.workers[index];
  if (pid === undefined) throw new Error(`the stack has no worker ${index + 1}`);
  await sigkill(pid, PROCESS_NAMES.gate);
  return pid;
}

/** The index of the worker with this pid, or -1. */
export function workerIndex(s: StackSettings, pid: number): number {
  return currentState(s).pids.workers.indexOf(pid);
}

/** Starts worker `index` again (after a kill) and records its pid. */
export async function restartWorker(s: StackSettings, index: number): Promise<number> {
  const pid = await startWorker(s, index);
  const info = currentState(s);
  info.pids.workers[index] = pid;
  writeState(s, info);
  return pid;
}

export async function killTemporal(s: StackSettings): Promise<void> {
  await sigkill(currentState(s).pids.temporal, PROCESS_NAMES.temporal);
}

/** Starts the Temporal server again on its PostgreSQL (schemas in place) and records its pid. */
export async function restartTemporal(s: StackSettings): Promise<number> {
  const d = await startTemporal(
    s,
    ensureServerBuilt(s, () => undefined),
  );
  const info = currentState(s);
  info.pids.temporal = d.pid;
  writeState(s, info);
  return d.pid;
}

/** Stops PostgreSQL at once (`pg_ctl -m immediate`: connections cut, no checkpoint), keeping its data. */
export function stopDatabase(s: StackSettings): void {
  stopPostgres(s, 'immediate');
}

/** Starts PostgreSQL again on its data (crash recovery from the WAL) and records its pid. */
export function restartDatabase(s: StackSettings): number {
  const pid = startPostgres(s);
  const info = currentState(s);
  info.pids.postgres = pid;
  writeState(s, info);
  return pid;
}

/** True while PostgreSQL's postmaster runs. */
export function databaseRunning(s: StackSettings): boolean {
  return isRunning(postgresPid(s), PROCESS_NAMES.postgres);
}
