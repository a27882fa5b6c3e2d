// CPU time spent, by this process (client, API and in-process workers together) and by
// the server's processes (bench/server-processes.ts), read before and after a measurement. Unlike wall time it barely moves
// with what else runs on the machine, so the gate's extra work shows even on a busy box.
import fs from 'node:fs';
import { fmt } from './report';
import { processTree } from './rss';
import { median } from './stats';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

/** Fields after the parenthesised name of a /proc stat file (a process's or a thread's); undefined when it cannot be read. */
function statFileFields(file: string): string[] | undefined {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const statFields = (pid: number): string[] | undefined => statFileFields(`/proc/${pid}/stat`);

/**
 * CPU ms of the process trees under `roots`: utime + stime of every live process in them,
 * plus what the roots' children that have exited and been reaped spent (cutime + cstime),
 * so a database backend that ends between two readings still counts. NaN without roots
 * (a server on another host) or when a root is gone.
 */
export function treeCpuMs(roots: readonly number[]): number {
  if (roots.length === 0) return NaN;
  let ticks = 0;
  for (const root of roots) {
    const rf = statFields(root);
    if (!rf) return NaN;
    ticks += Number(rf[13]) + Number(rf[14]); // cutime, cstime: fields 16 and 17 of stat
    for (const pid of processTree(root)) {
      const f = pid === root ? rf : statFields(pid);
      if (f) ticks += Number(f[11]) + Number(f[12]); // utime, stime: fields 14 and 15
    }
  }
  return (ticks * 1000) / TICKS_PER_S;
}

/** The bench process's threads, by what they do (see `threadGroup`). */
export const THREAD_GROUPS = ['main', 'workflow', 'core', 'helpers'] as const;
export type ThreadGroup = (typeof THREAD_GROUPS)[number];

/**
 * What a thread of this process does, from its id and name (`/proc/self/task/<tid>/comm`):
 * `main` (client, API, activities, the workers' Node side); `core` (the SDK's Rust threads:
 * tokio, workflow processing); `helpers` (threads Node started before the bench's workers:
 * V8's garbage-collection and compiler helpers, libuv's pool); `workflow` (Node threads
 * started later: the workers' workflow threads). Node names all its threads `node`, so
 * only the start order tells helpers from workflow threads.
 */
export function threadGroup(tid: number, comm: string, pid: number, early: ReadonlySet<number>): ThreadGroup {
  if (tid === pid) return 'main';
  if (comm !== 'node') return 'core';
  return early.has(tid) ? 'helpers' : 'workflow';
}

/** utime + stime ticks of each live thread of a process (this one by default), with its name. */
function threadTicks(pid: number | 'self' = 'self'): Map<number, { comm: string; ticks: number }> {
  const out = new Map<number, { comm: string; ticks: number }>();
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out; // not Linux, or the process is gone
  }
  for (const t of tids) {
    let comm: string;
    try {
      comm = fs.readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim();
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const f = statFileFields(`/proc/${pid}/task/${t}/stat`);
    if (f) out.set(Number(t), { comm, ticks: Number(f[11]) + Number(f[12]) }); // utime, stime
  }
  return out;
}

/** Threads alive when the bench began, before any worker: Node's own helpers. */
const earlyThreads = new Set(threadTicks().keys());

/** One value per thread group. */
function byGroup(value: (g: ThreadGroup) => number): Record<ThreadGroup, number> {
  return Object.fromEntries(THREAD_GROUPS.map((g) => [g, value(g)])) as Record<ThreadGroup, number>;
}

/** ms of CPU per thread group between two readings; threads that ended meanwhile are left out. */
function threadGroupsMs(
  before: Map<number, { comm: string; ticks: number }>,
  after: Map<number, { comm: string; ticks: number }>,
  group: (tid: number, comm: string) => ThreadGroup,
): Record<ThreadGroup, number> {
  const out = byGroup(() => 0);
  for (const [tid, a] of after) {
    const ticks = a.ticks - (before.get(tid)?.ticks ?? 0);
    out[group(tid, a.comm)] += (ticks * 1000) / TICKS_PER_S;
  }
  return out;
}

/**
 * What a thread of a gate worker process does. As in `threadGroup`, with the start order
 * read from the thread ids (Linux gives them in order): the Node threads started before
 * the SDK's first Rust thread are `helpers` (V8's, at Node's start), the later ones
 * `workflow` (the workflow thread, and libuv's pool, which a worker barely uses).
 */
export function workerThreadGroup(
  tid: number,
  comm: string,
  pid: number,
  firstCoreTid: number | undefined,
): ThreadGroup {
  if (tid === pid) return 'main';
  if (comm !== 'node') return 'core';
  return firstCoreTid === undefined || tid < firstCoreTid ? 'helpers' : 'workflow';
}

/** `threadGroupsMs` for another process's readings, grouped by `workerThreadGroup`. */
function workerThreadsMs(
  pid: number,
  before: Map<number, { comm: string; ticks: number }>,
  after: Map<number, { comm: string; ticks: number }>,
): Record<ThreadGroup, number> {
  const core = [...after].filter(([tid, t]) => tid !== pid && t.comm !== 'node').map(([tid]) => tid);
  const firstCore = core.length > 0 ? Math.min(...core) : undefined;
  return threadGroupsMs(before, after, (tid, comm) => workerThreadGroup(tid, comm, pid, firstCore));
}

export interface CpuSpent {
  /** ms of CPU of this process (every thread: client, API, workers' workflow threads). */
  bench: number;
  /** `bench` split by thread group (`threadGroup`); absent on a system without /proc/self/task. */
  threads?: Record<ThreadGroup, number>;
  /** ms of CPU of the server's processes (bench/server-processes.ts); NaN when it has none on this host. */
  server: number;
  /** ms of CPU of a gate worker process of its own (and its children), when the meter was given its pid. */
  worker?: number;
  /** `worker` split by thread group (`workerThreadGroup`), its own threads only. */
  workerThreads?: Record<ThreadGroup, number>;
}

/** Starts counting; the returned function gives what was spent since (`worker` only with `workerPid`). */
export function cpuMeter(serverPids: readonly number[], workerPid?: number): () => CpuSpent {
  const p0 = process.cpuUsage();
  const s0 = treeCpuMs(serverPids);
  const w0 = workerPid === undefined ? undefined : treeCpuMs([workerPid]);
  const t0 = threadTicks();
  const wt0 = workerPid === undefined ? undefined : threadTicks(workerPid);
  return () => {
    const p = process.cpuUsage(p0);
    const spent: CpuSpent = { bench: (p.user + p.system) / 1000, server: treeCpuMs(serverPids) - s0 };
    if (t0.size > 0)
      spent.threads = threadGroupsMs(t0, threadTicks(), (tid, comm) =>
        threadGroup(tid, comm, process.pid, earlyThreads),
      );
    if (w0 !== undefined) spent.worker = treeCpuMs([workerPid!]) - w0;
    if (wt0 && wt0.size > 0) spent.workerThreads = workerThreadsMs(workerPid!, wt0, threadTicks(workerPid));
    return spent;
  };
}

/**
 * The highest throughput ratio (gate against bare) the CPU allows when every core is busy:
 * the bare CPU per unit of work over the gate's, bench process and server together. A
 * throughput ratio near it says the run was CPU-bound and only less CPU per gate moves
 * it; one well below it says the gate waited on something else. NaN without the server's
 * CPU (a server with no process on this host), which would leave out most of the cost.
 */
export function cpuCeiling(gate: CpuSpent, bare: CpuSpent): number {
  const total = (c: CpuSpent): number => c.bench + c.server;
  const r = total(bare) / total(gate);
  return Number.isFinite(r) && r > 0 ? r : NaN;
}

/** The `*.cpu_ceiling` line: the ceiling, and what it means for the throughput ratio beside it. */
export function ceilingText(gate: CpuSpent, bare: CpuSpent): string {
  const c = cpuCeiling(gate, bare);
  return Number.isFinite(c)
    ? `${c.toFixed(2)} (bare CPU / gate CPU, bench process + server: the throughput ratio's limit when every core is busy)`
    : 'n/a (no server CPU: TEMPORAL_ADDRESS names no process on this host; see BENCH_SERVER_PIDS)';
}

/** `<bench> ms bench process + <server> ms server`. */
export function cpuText(c: CpuSpent): string {
  return `${fmt(c.bench, 'ms')} bench process + ${fmt(c.server, 'ms')} server`;
}

/** `main 6.1 ms, workflow 4.0 ms, core 1.2 ms, helpers 3.3 ms`; n/a without a split. */
export function threadsText(c: CpuSpent, of: 'threads' | 'workerThreads' = 'threads'): string {
  const t = c[of];
  return t ? THREAD_GROUPS.map((g) => `${g} ${fmt(t[g], 'ms')}`).join(', ') : 'n/a';
}

/** The median CPU per unit of work over rounds: bench process, server and each thread group. */
export function medianCpu(rounds: { cpu: CpuSpent }[]): CpuSpent {
  const out: CpuSpent = {
    bench: median(rounds.map((r) => r.cpu.bench)),
    server: median(rounds.map((r) => r.cpu.server)),
  };
  if (rounds.length > 0 && rounds.every((r) => r.cpu.threads))
    out.threads = byGroup((g) => median(rounds.map((r) => r.cpu.threads![g])));
  return out;
}

/** Adds `c` to the running total `acc`: every figure of it, the thread groups too once both have them. */
export function addCpu(acc: CpuSpent, c: CpuSpent): void {
  acc.bench += c.bench;
  acc.server += c.server;
  if (c.worker !== undefined) acc.worker = (acc.worker ?? 0) + c.worker;
  if (c.threads) acc.threads = addGroups(acc.threads, c.threads);
  if (c.workerThreads) acc.workerThreads = addGroups(acc.workerThreads, c.workerThreads);
}

function addGroups(
  acc: Record<ThreadGroup, number> | undefined,
  c: Record<ThreadGroup, number>,
): Record<ThreadGroup, number> {
  const t = acc ?? byGroup(() => 0);
  for (const g of THREAD_GROUPS) t[g] += c[g];
  return t;
}

/** CPU per unit of work: every figure of `c` divided by `n`. */
export function perUnit(c: CpuSpent, n: number): CpuSpent {
  const out: CpuSpent = { bench: c.bench / n, server: c.server / n };
  if (c.threads) out.threads = byGroup((g) => c.threads![g] / n);
  if (c.worker !== undefined) out.worker = c.worker / n;
  if (c.workerThreads) out.workerThreads = byGroup((g) => c.workerThreads![g] / n);
  return out;
}
