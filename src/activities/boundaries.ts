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

/** The boundaries inside the worker; `created` and `result recorded` are seen from outside. */
export const WORKER_BOUNDARIES = ['decided', 'rechecked', 'tool_started', 'effect_written'] as const;
export type WorkerBoundary = (typeof WORKER_BOUNDARIES)[number];

/** The longest a call waits at a boundary, so a forgotten hold file never wedges a worker. */
const MAX_HOLD_MS = 120_000;

export async function atBoundary(boundary: WorkerBoundary, session: string): Promise<void> {
  const dir = process.env[BOUNDARY_DIR_ENV];
  if (!dir) return;
  const hold = path.join(dir, `hold.${boundary}`);
  if (!fs.existsSync(hold)) return;
  const safe = session.replace(/[^A-Za-z0-9_.-]/g, '_');
  fs.writeFileSync(path.join(dir, `reached.${boundary}.${safe}`), String(process.pid));
  const deadline = Date.now() + MAX_HOLD_MS;
  while (fs.existsSync(hold) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}
