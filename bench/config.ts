// The bench's knobs, all from the environment, with defaults sized so that the whole
// default run takes about 5-8 minutes on a 2-core machine (bench/README.md).
import { PORT_OFFSETS } from '../src/stack/temporal-config';

export const SECTIONS = ['overhead', 'tool', 'create', 'policy', 'pending', 'burst'] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchConfig {
  sections: Section[];
  /** Lifecycles per overhead measurement (one kind, one round, one concurrency). */
  n: number;
  /** Rounds of (bare, gate) per figure; each figure is the median over the rounds. */
  rounds: number;
  /** The two overhead concurrencies: 1 and BENCH_C. */
  concurrency: number;
  /** Decision-to-tool-start samples per kind (bare, gate). */
  toolN: number;
  /** Creates per create round and kind. */
  createN: number;
  createC: number;
  /** Creates per kind (200 rules, 1 rule) and round in the policy section, one at a time, interleaved. */
  policyN: number;
  /** Pending gates to fill the queue with (the target: 100000, by hand). */
  pending: number;
  fillC: number;
  /** Decisions per group in the pending section (idle, newest, evicted, oldest). */
  decisions: number;
  /** List requests per limit in the pending section. */
  listN: number;
  /** The burst section: creates over HTTP, at this concurrency (BENCH_BURST_N, BENCH_BURST_C). */
  burstN: number;
  burstC: number;
  /** Decisions sent at once after the burst, half on the oldest gates and half on the newest (BENCH_BURST_DECISIONS). */
  burstDecisions: number;
  /** Seconds between the last accepted create and the decisions (BENCH_BURST_PAUSE_S; the reviewer came 5 s later). */
  burstPauseS: number;
  /** Gates the worker runs alone to measure its first-task rate (BENCH_BURST_RATE_N). */
  burstRateN: number;
  /** Gate worker processes of the burst section: 1 as `gate dev`, 2 as `gate stack` with TEMPORAL_ADDRESS (BENCH_BURST_WORKERS). */
  burstWorkers: number;
  /**
   * Embedded dev server persistence: memory (default: the server's own cost is smallest,
   * so the gate's shows most) or a SQLite file in the temp dir (as `gate dev`; for 100k gates).
   */
  devDb: 'file' | 'memory';
  /** Use this server instead of starting one. */
  temporalAddress?: string;
  namespace: string;
  /**
   * Process trees counted as the server's besides the one the bench finds (the dev server it
   * started, or the process listening on TEMPORAL_ADDRESS's port on this host): a real
   * server's database, for example (BENCH_SERVER_PIDS, comma-separated).
   */
  serverPids: number[];
  /** Keep the temp dir (server log, gate.db files) after the run. */
  keepDir: boolean;
  /**
   * The overhead and tool sections' clients. `worker`: as `gate dev` runs the API, each
   * kind's client on its in-process worker's connection, the gate's creates eager on it
   * when GATE_EAGER_START is on (GateClient `eagerStart`); `own`: one connection of the
   * bench's own for both kinds, as a `gate api` process of its own reaches the server
   * (never eager), which is how `gate stack` runs it. Default: `worker` on the embedded
   * dev server, `own` with TEMPORAL_ADDRESS.
   */
  client: 'worker' | 'own';
  /**
   * The bare baselines' stack capture (BENCH_BARE_STACKS). `sdk` (default): the SDK's,
   * a stack per promise, as a bare Temporal worker runs. `gate`: the gate workers' frame
   * limit as well (src/workflow/internal/stack-frames.ts), to price that setting on its own.
   */
  bareStacks: 'sdk' | 'gate';
  /**
   * The Temporal server's Prometheus endpoint (BENCH_SERVER_METRICS), read around each of
   * the pending section's timed decisions. Default: `gate stack`'s (the frontend port + 9)
   * when TEMPORAL_ADDRESS is on this host; the embedded dev server's own (a port the bench
   * gives it). `off` when BENCH_SERVER_METRICS is set and empty.
   */
  serverMetrics?: string | 'off';
}

/** Thrown for a malformed knob: the bench exits 2 before anything starts. */
export class BenchUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new BenchUsageError(`${name}=${raw} must be a whole number >= ${min}`);
  return n;
}

function sections(raw: string | undefined): Section[] {
  if (!raw) return [...SECTIONS];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = names.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (bad.length > 0 || names.length === 0)
    throw new BenchUsageError(
      `BENCH_SECTIONS=${raw}: unknown ${bad.join(', ') || 'empty list'}; choose from ${SECTIONS.join(',')}`,
    );
  return SECTIONS.filter((s) => names.includes(s)); // always in the canonical order: pending and burst last, they fill the server
}

function pids(raw: string | undefined): number[] {
  if (!raw?.trim()) return [];
  return raw.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 1)
      throw new BenchUsageError(`BENCH_SERVER_PIDS=${raw}: "${s.trim()}" is not a pid (comma-separated whole numbers)`);
    return n;
  });
}

/** Reads the knobs. Throws BenchUsageError naming the variable when one is malformed. */
export function loadBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const devDb = env.BENCH_DEV_DB || 'memory';
  const client = env.BENCH_CLIENT || (env.TEMPORAL_ADDRESS ? 'own' : 'worker');
  if (client !== 'worker' && client !== 'own')
    throw new BenchUsageError(`BENCH_CLIENT=${client} must be worker or own`);
  const bareStacks = env.BENCH_BARE_STACKS || 'sdk';
  if (bareStacks !== 'sdk' && bareStacks !== 'gate')
    throw new BenchUsageError(`BENCH_BARE_STACKS=${bareStacks} must be sdk or gate`);
  if (devDb !== 'file' && devDb !== 'memory') throw new BenchUsageError(`BENCH_DEV_DB=${devDb} must be file or memory`);
  return {
    sections: sections(env.BENCH_SECTIONS),
    n: whole(env, 'BENCH_N', 400),
    rounds: whole(env, 'BENCH_ROUNDS', 3),
    concurrency: whole(env, 'BENCH_C', 20, 2),
    toolN: whole(env, 'BENCH_TOOL_N', 60),
    createN: whole(env, 'BENCH_CREATE_N', 500),
    createC: whole(env, 'BENCH_CREATE_C', 16),
    policyN: whole(env, 'BENCH_POLICY_N', 200),
    pending: whole(env, 'BENCH_PENDING', 2000),
    fillC: whole(env, 'BENCH_FILL_C', 48),
    decisions: whole(env, 'BENCH_DECISIONS', 30),
    listN: whole(env, 'BENCH_LIST_N', 30),
    burstN: whole(env, 'BENCH_BURST_N', 10_000),
    burstC: whole(env, 'BENCH_BURST_C', 16),
    burstDecisions: whole(env, 'BENCH_BURST_DECISIONS', 20, 2),
    burstPauseS: whole(env, 'BENCH_BURST_PAUSE_S', 5, 0),
    burstRateN: whole(env, 'BENCH_BURST_RATE_N', 1000),
    burstWorkers: whole(env, 'BENCH_BURST_WORKERS', env.TEMPORAL_ADDRESS ? 2 : 1),
    devDb,
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    serverPids: pids(env.BENCH_SERVER_PIDS),
    keepDir: env.BENCH_KEEP_DIR === '1',
    client,
    bareStacks,
    serverMetrics: serverMetricsUrl(env),
  };
}

function serverMetricsUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (env.BENCH_SERVER_METRICS !== undefined) return env.BENCH_SERVER_METRICS || 'off';
  const local = /^(127\.0\.0\.1|localhost):(\d+)$/.exec(env.TEMPORAL_ADDRESS ?? '');
  return local ? `http://127.0.0.1:${Number(local[2]) + PORT_OFFSETS.metrics}/metrics` : undefined;
}
