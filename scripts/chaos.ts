/**
 * `npm run chaos`: each fault at each boundary of a gated call, on a `gate stack` of its
 * own (PostgreSQL, a real Temporal server, two workers, the API), and the table of
 * trials, lost gates, double effects, stuck gates and wrong outcomes.
 *   npm run chaos -- [--trials 50] [--batch 5] [--faults a,b] [--boundaries x,y] [--budget-minutes M] [--out FILE]
 *   npm run chaos -- --ci      # the bounded variant: 1 trial per cell
 * Exits 1 when any trial lost a gate, doubled an effect, got stuck or ended wrong.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { boundaryStackEnv, WORKER_BOUNDARIES, type WorkerBoundary } from '../test/chaos/boundaries';
import { emptyCell, runBatch, type CellResult } from '../test/chaos/engine';
import { chaosContext } from '../test/chaos/context';
import { FAULTS, type Fault } from '../test/chaos/faults';
import { chaosTable } from '../test/chaos/table';
import { freePort, freePortRange } from '../test/support/ports';

const ROOT = path.resolve(__dirname, '..');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function list<T extends string>(name: string, all: readonly T[]): T[] {
  const raw = arg(name);
  if (!raw) return [...all];
  const picked = raw.split(',') as T[];
  for (const p of picked) if (!all.includes(p)) throw new Error(`--${name}: ${p} is not one of ${all.join(', ')}`);
  return picked;
}

function gate(args: string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'gate.js'), ...args], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`gate ${args.join(' ')} exited ${r.status}`);
  return r.stdout;
}

function writeOut(cells: CellResult[], started: number, trials: number, batchSize: number): void {
  const out = arg('out');
  const minutes = Number(((Date.now() - started) / 60_000).toFixed(1));
  if (out)
    fs.writeFileSync(out, JSON.stringify({ cells, minutes, trials, batchSize, table: chaosTable(cells) }, null, 2));
}

async function main(): Promise<number> {
  const ci = process.argv.includes('--ci');
  const trials = Number(arg('trials') ?? (ci ? 1 : 50));
  const batchSize = Number(arg('batch') ?? (ci ? 2 : 5));
  const budgetMs = Number(arg('budget-minutes') ?? (ci ? 30 : 24 * 60)) * 60_000;
  const faults = list<Fault>('faults', FAULTS);
  const boundaries = list<WorkerBoundary>('boundaries', WORKER_BOUNDARIES);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-chaos-'));
  fs.chmodSync(dir, 0o755);
  const env: Record<string, string> = {
    GATE_DATA_DIR: dir,
    GATE_PORT: String(await freePort()),
    GATE_STACK_PG_PORT: String(await freePort()),
    GATE_STACK_TEMPORAL_PORT: String(await freePortRange(11)),
    // The holds: test/chaos/boundaries.ts, loaded by the stack's workers as their domains and interceptors.
    ...boundaryStackEnv(path.join(dir, 'boundaries')),
    GATE_LOG_LEVEL: 'warn',
    GATE_WEBHOOK_URLS: '',
  };
  fs.mkdirSync(path.join(dir, 'boundaries'));
  const full = { ...process.env, ...env };
  const info = JSON.parse(gate(['stack', 'up', '--json'], full)) as { api_url: string; database_url: string };
  console.error(`chaos: stack up in ${dir}`);
  const { ctx, db } = await chaosContext(env, info, (l) => console.error(l));
  const cells: CellResult[] = faults.flatMap((f) => boundaries.map((b) => emptyCell(f, b)));
  const started = Date.now();
  try {
    // Round-robin, one batch per cell a round: when the time budget ends the run, every
    // cell has had the same number of batches. A cell stops after 4 batches per wanted
    // trial's worth (a boundary that is never reached must not spin forever).
    for (let round = 0; round < Math.max(4, trials); round++) {
      const open = cells.filter((c) => c.trials < trials);
      if (open.length === 0) break;
      for (const c of open) {
        if (Date.now() - started > budgetMs) break;
        await runBatch(ctx, c, trials, batchSize);
      }
      if (Date.now() - started > budgetMs) {
        console.error(`chaos: time budget spent after round ${round + 1}`);
        break;
      }
      writeOut(cells, started, trials, batchSize); // partial results survive an interrupted run
    }
  } finally {
    await db.close();
    try {
      gate(['stack', 'down'], full);
    } catch (err) {
      console.error(String(err));
    }
    if (process.env.GATE_KEEP_CHAOS_DATA !== '1') fs.rmSync(dir, { recursive: true, force: true });
  }
  const table = chaosTable(cells);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(table);
  console.log(`\n${cells.length} cells, ${minutes} min; asked ${trials} trials per cell, batches of ${batchSize}`);
  for (const c of cells) for (const n of c.notes) console.log(`note: ${c.fault} @ ${c.boundary}: ${n}`);
  writeOut(cells, started, trials, batchSize);
  const bad = cells.reduce((a, c) => a + c.lost + c.double + c.stuck + c.wrong, 0);
  return bad === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
