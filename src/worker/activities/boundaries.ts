import fs from 'node:fs';
import path from 'node:path';

/**
 * Test-only hook of the chaos program (`npm run chaos`), off unless GATE_TEST_BOUNDARY_DIR
 * names a directory. A fault must hit a gated call exactly at one boundary, and only the
 * worker knows when it is there: while `<dir>/hold.<boundary>` exists, a call reaching that
 * boundary writes `<dir>/reached.<boundary>.<session>` (holding this process's pid) and
 * waits until the hold file is removed. The driver then injects the fault (kills this very
 * worker, the server or the database) and lifts the hold.
 */
export const BOUNDARY_DIR_ENV = 'GATE_TEST_BOUNDARY_DIR';

/**
 * The boundaries of a gated call, in order, and where the worker pauses for each:
 * created (the audit batch with `approval.requested`: the gate is in history, its trail
 * entry not yet written), decided (the snapshot re-check starts: the decision is in
 * history), rechecked (the re-check has read the store, its result is not yet
 * recorded), tool started (before the effect), effect written (committed, the activity
 * has not returned) and result recorded (the audit batch with `tool.succeeded`).
 * Keyed by the request id (for tool started and effect written: the tool's idempotency
 * key, which is the request id for a gated call) or, for the re-check, the session id.
 * A hold is meant to be set once the calls under test have their gates: tools that run
 * without a gate pass through the tool boundaries too.
 */
export const WORKER_BOUNDARIES = [
  'created',
  'decided',
  'rechecked',
  'tool_started',
  'effect_written',
  'result_recorded',
] as const;
export type WorkerBoundary = (typeof WORKER_BOUNDARIES)[number];

/** The longest a call waits at a boundary, so a forgotten hold file never wedges a worker. */
const MAX_HOLD_MS = 120_000;

export async function atBoundary(boundary: WorkerBoundary, key: string): Promise<void> {
  const dir = process.env[BOUNDARY_DIR_ENV];
  if (!dir) return;
  const hold = path.join(dir, `hold.${boundary}`);
  if (!fs.existsSync(hold)) return;
  const safe = key.replace(/[^A-Za-z0-9_.-]/g, '_');
  fs.writeFileSync(path.join(dir, `reached.${boundary}.${safe}`), String(process.pid));
  const deadline = Date.now() + MAX_HOLD_MS;
  while (fs.existsSync(hold) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}
