import type { WorkerBoundary } from '../chaos/boundaries';
import type { Db } from '../../src/store/db';
import { chaosContext } from '../chaos/context';
import { runCell, type CellResult, type ChaosContext } from '../chaos/engine';
import type { Fault } from '../chaos/faults';
import { chaosTable } from '../chaos/table';
import { stackTarget } from '../support/stack-target';

// The bounded chaos run of CI: every fault and every boundary at least once (the full
// matrix, 50 trials a cell, is `npm run chaos`). Each trial is an agent run whose gated
// submit is held at the boundary in a worker while the fault hits, then checked end to end.
const CELLS: [Fault, WorkerBoundary][] = [
  ['restart_postgres', 'created'],
  ['restart_postgres', 'decided'],
  ['kill_temporal', 'decided'],
  ['kill_both_workers', 'rechecked'],
  ['kill_one_worker', 'tool_started'],
  ['kill_one_worker', 'effect_written'],
  ['kill_temporal', 'effect_written'],
  ['kill_both_workers', 'result_recorded'],
];

let ctx: ChaosContext;
let db: Db;
beforeAll(async () => {
  const t = stackTarget()!;
  ({ ctx, db } = await chaosContext(t.env, t.info, () => undefined));
});
afterAll(async () => {
  await db?.close();
});

describe('chaos at the boundaries of a gated call (CI variant)', () => {
  const results: CellResult[] = [];
  afterAll(() => {
    console.log(`chaos (CI variant):\n${chaosTable(results)}\n${results.flatMap((r) => r.notes).join('\n')}`);
  });

  it.each(CELLS)(
    '%s at %s: no lost gate, no double effect, nothing stuck, the right outcome',
    async (fault, boundary) => {
      const r = await runCell(ctx, fault, boundary, 1, 2, 3);
      results.push(r);
      expect(r.trials).toBeGreaterThanOrEqual(1);
      expect({ lost: r.lost, double: r.double, stuck: r.stuck, wrong: r.wrong, notes: r.notes }).toEqual({
        lost: 0,
        double: 0,
        stuck: 0,
        wrong: 0,
        notes: [],
      });
    },
    600_000,
  );
});
