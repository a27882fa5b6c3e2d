// The Temporal server the bench measures against: an embedded dev server it starts
// (headless, SQLite file in the temp dir or in memory), or the one TEMPORAL_ADDRESS names.
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ensureSearchAttributes } from '../src/worker/search-attributes';
import { ensureTemporalCli, startDevServer } from '../src/dev/temporal-cli';
import { stopChild, track } from './children';
import type { BenchConfig } from './config';
import { serverProcesses, type ServerProcess } from './server-processes';

export interface BenchServer {
  address: string;
  /** For the header: what kind of server, where its state lives. */
  description: string;
  /**
   * The process trees whose CPU and memory count as the server's: the dev server the bench
   * started; for TEMPORAL_ADDRESS the listener on its port when it is on this host, and
   * BENCH_SERVER_PIDS. Empty for a server elsewhere (its figures print n/a).
   */
  processes: ServerProcess[];
  /** The roots of `processes`, for the CPU meters. */
  pids: number[];
  external: boolean;
  /**
   * The server's Prometheus endpoint, read by the pending section: BENCH_SERVER_METRICS (gate
   * stack's by default) for TEMPORAL_ADDRESS, the port the bench gave the dev server it started.
   */
  metricsUrl?: string;
  /** Throws when the dev server the bench started is gone (a section should stop, not wait on timeouts). */
  check(): void;
  stop(): Promise<void>;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function cliVersion(cli: string): string {
  const r = spawnSync(cli, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().replace(/^temporal version /, '') : 'unknown version';
}

/** Starts the dev server (or attaches to TEMPORAL_ADDRESS) and registers the gate's search attributes. */
export async function openServer(cfg: BenchConfig, dir: string): Promise<BenchServer> {
  // BENCH_SERVER_METRICS, else the server's own endpoint when the bench knows it; none when turned off.
  const metricsUrl = (own?: string): string | undefined =>
    cfg.serverMetrics === 'off' ? undefined : (cfg.serverMetrics ?? own);
  if (cfg.temporalAddress) {
    await ensureSearchAttributes(cfg.temporalAddress, cfg.namespace);
    const processes = serverProcesses(cfg.temporalAddress, cfg.serverPids);
    const measured = processes.length
      ? `server processes ${processes.map((p) => `${p.pid} (${p.role})`).join(', ')}`
      : 'no server process on this host: server CPU and RSS n/a';
    return {
      address: cfg.temporalAddress,
      description: `TEMPORAL_ADDRESS=${cfg.temporalAddress} (namespace ${cfg.namespace}); ${measured}`,
      processes,
      pids: processes.map((p) => p.pid),
      external: true,
      metricsUrl: metricsUrl(),
      check: () => undefined,
      stop: async () => undefined,
    };
  }
  const dbFile = cfg.devDb === 'file' ? path.join(dir, 'temporal.db') : undefined;
  const version = cliVersion(ensureTemporalCli());
  const port = await freePort();
  let metricsPort = await freePort();
  while (metricsPort === port) metricsPort = await freePort(); // each is free alone; the server needs both
  const server = await startDevServer({
    metricsPort,
    port,
    headless: true,
    dbFile,
    namespace: cfg.namespace,
    logFile: path.join(dir, 'temporal.log'),
  });
  track(server.process);
  const extra = serverProcesses(undefined, cfg.serverPids);
  await ensureSearchAttributes(server.address, cfg.namespace); // start-dev registers them too; idempotent
  return {
    address: server.address,
    description: `embedded dev server ${server.address} (temporal ${version}, ${dbFile ? `SQLite file ${dbFile}` : 'in memory'})`,
    processes: [{ pid: server.process.pid!, role: 'the dev server started by the bench' }, ...extra],
    pids: [server.process.pid!, ...extra.map((p) => p.pid)],
    external: false,
    metricsUrl: metricsUrl(`http://127.0.0.1:${metricsPort}/metrics`),
    check() {
      const p = server.process;
      if (p.exitCode !== null || p.signalCode !== null)
        throw new Error(
          `the Temporal dev server (pid ${p.pid}) exited (code ${p.exitCode}, signal ${p.signalCode}); see ${path.join(dir, 'temporal.log')}`,
        );
    },
    stop: () => stopChild(server.process),
  };
}
