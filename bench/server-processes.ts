// The processes whose CPU and memory count as the Temporal server's: the dev server the
// bench started or, with TEMPORAL_ADDRESS on this host, the process listening on its
// port, plus the trees named by BENCH_SERVER_PIDS (a real server's database, say). Found
// from /proc (Linux only); a server on another host has none, and its figures stay n/a.
import fs from 'node:fs';
import os from 'node:os';

/** LISTEN in the `st` column of /proc/net/tcp and tcp6. */
const TCP_LISTEN = '0A';

/**
 * Socket inodes listening on `port`, from the text of /proc/net/tcp or /proc/net/tcp6
 * (columns: sl, local_address as HEXADDR:HEXPORT, rem_address, st, ..., inode at index 9).
 */
export function listeningInodes(procNetTcp: string, port: number): string[] {
  const out: string[] = [];
  for (const line of procNetTcp.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const local = f[1]!;
    const hexPort = local.slice(local.lastIndexOf(':') + 1);
    if (f[3] === TCP_LISTEN && parseInt(hexPort, 16) === port && f[9] !== '0') out.push(f[9]!);
  }
  return out;
}

/** `host` names this machine: loopback, a wildcard or one of its interfaces' addresses. */
export function isLocalHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (['localhost', '127.0.0.1', '::1', '0.0.0.0', '::'].includes(h) || h.startsWith('127.')) return true;
  return Object.values(os.networkInterfaces()).some((addrs) => (addrs ?? []).some((a) => a.address === h));
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The pid holding a socket that listens on `port` on this machine (the lowest, if several share it). */
export function listenerPid(port: number): number | undefined {
  const inodes = new Set(
    ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((f) => listeningInodes(readOr(f), port)).map((i) => `socket:[${i}]`),
  );
  if (inodes.size === 0) return undefined;
  const pids = fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .sort((a, b) => a - b);
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // exited, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (inodes.has(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))) return pid;
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return undefined;
}

/** One process tree counted as the server's, and why. */
export interface ServerProcess {
  pid: number;
  /** For the header and the RSS line: `listening on 7733`, `BENCH_SERVER_PIDS`, `the dev server started by the bench`. */
  role: string;
}

/**
 * The server processes: for TEMPORAL_ADDRESS (`address`), its listener when the address is
 * on this host; then the BENCH_SERVER_PIDS trees, each of which must exist (else the bench
 * would silently count nothing for it).
 */
export function serverProcesses(address: string | undefined, extra: readonly number[]): ServerProcess[] {
  const out: ServerProcess[] = [];
  const sep = address?.lastIndexOf(':') ?? -1;
  if (address && sep > 0) {
    const port = Number(address.slice(sep + 1));
    const listener = Number.isInteger(port) && isLocalHost(address.slice(0, sep)) ? listenerPid(port) : undefined;
    if (listener !== undefined) out.push({ pid: listener, role: `listening on ${port}` });
  }
  for (const pid of extra) {
    if (!fs.existsSync(`/proc/${pid}`)) throw new Error(`BENCH_SERVER_PIDS names pid ${pid}, which is not running`);
    if (!out.some((p) => p.pid === pid)) out.push({ pid, role: 'BENCH_SERVER_PIDS' });
  }
  return out;
}
