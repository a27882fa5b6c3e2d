import fs from 'node:fs';
import path from 'node:path';
import type { ActivityInterceptorsFactory, WorkerInterceptors } from '@temporalio/worker';
import type { DomainAdapter } from '../../src/domain/types';
import type { RecordAuditEventsInput } from '../../src/worker/activities/contracts';

/**
 * The chaos program's holds (`npm run chaos`, test/production/chaos.test.ts). A fault must hit
 * a gated call exactly at one boundary, and only the worker knows when it is there: while
 * `<dir>/hold.<boundary>` exists, a call reaching that boundary writes
 * `<dir>/reached.<boundary>.<key>` (holding the worker's pid) and waits until the hold file is
 * removed. The driver then injects the fault (kills this very worker, the server or the
 * database) and lifts the hold. The stack's processes load the holds through the worker's
 * extension points (`boundaryStackEnv`: test/chaos/boundary-stack.ts as GATE_DOMAINS_MODULE and
 * GATE_WORKER_INTERCEPTORS_MODULE); the package itself carries no hook.
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

/** Waits at `boundary` while its hold file exists; returns at once without a boundary dir or hold. */
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

/**
 * A domain whose re-check and tool pass the four boundaries inside the gate's activities:
 * decided and rechecked around the re-check (in `recheckSnapshot` and in the re-check of
 * `recheckAndExecuteTool`, which the gate skips once the key has run), tool started and
 * effect written around the effect.
 */
export function holdAtBoundaries(adapter: DomainAdapter): DomainAdapter {
  return {
    ...adapter,
    async recheck(sessionId, tool, input, snapshot) {
      await atBoundary('decided', sessionId);
      const result = await adapter.recheck(sessionId, tool, input, snapshot);
      await atBoundary('rechecked', sessionId);
      return result;
    },
    async execute(sessionId, tool, input, idempotencyKey) {
      await atBoundary('tool_started', idempotencyKey);
      const output = await adapter.execute(sessionId, tool, input, idempotencyKey);
      await atBoundary('effect_written', idempotencyKey);
      return output;
    },
  };
}

/**
 * The gate's created and result-recorded boundaries: the audit batch's event is in history,
 * its trail entry not yet written (the hold comes before `recordAuditEvents` runs).
 */
const auditBoundaries: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      if (ctx.info.activityType === 'recordAuditEvents') {
        const { events } = input.args[0] as RecordAuditEventsInput;
        for (const e of events) {
          if (e.event_type === 'approval.requested') await atBoundary('created', e.request_id);
          if (e.event_type === 'tool.succeeded') await atBoundary('result_recorded', e.request_id);
        }
      }
      return next(input);
    },
  },
});

/** What the chaos stack's workers add (GATE_WORKER_INTERCEPTORS_MODULE). */
export const interceptors: WorkerInterceptors = { activity: [auditBoundaries] };

/** The environment that makes a `gate stack` hold its calls at the boundaries, with hold files under `dir`. */
export function boundaryStackEnv(dir: string): Record<string, string> {
  return {
    [BOUNDARY_DIR_ENV]: dir,
    GATE_DOMAINS_MODULE: path.join(__dirname, 'boundary-stack.ts'),
    GATE_WORKER_INTERCEPTORS_MODULE: path.join(__dirname, 'boundary-stack.ts'),
  };
}
