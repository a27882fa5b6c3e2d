import fs from 'node:fs';
import { createTripDomain, migrateTripStore } from '../../examples/trip';
import type { DomainAdapter, DomainSource } from '../../src/domain/types';

/** Env var of the crash tests: names a marker file; while it exists, a submission kills its process once it commits. */
export const CRASH_AFTER_SUBMIT_ENV = 'GATE_TEST_CRASH_AFTER_SUBMIT';

/**
 * The trip domain with a one-shot crash: right after `submit_trip_request` returns (the
 * submission has committed, the activity has not reported), the process SIGKILLs itself
 * when the marker file exists, and deletes the marker first so the retried call runs on.
 */
export function crashAfterSubmit(adapter: DomainAdapter): DomainAdapter {
  return {
    ...adapter,
    async execute(sessionId, tool, input, idempotencyKey) {
      const output = await adapter.execute(sessionId, tool, input, idempotencyKey);
      const marker = process.env[CRASH_AFTER_SUBMIT_ENV];
      if (tool === 'submit_trip_request' && marker && fs.existsSync(marker)) {
        fs.unlinkSync(marker); // one shot: the retried activity must not crash again
        process.kill(process.pid, 'SIGKILL');
      }
      return output;
    },
  };
}

/** What a crash test's worker serves (GATE_DOMAINS_MODULE): the trip example with the crash. */
export const domains: DomainSource[] = [
  async ({ db }) => {
    await migrateTripStore(db);
    return crashAfterSubmit(createTripDomain(db));
  },
];

/** The environment of a worker that dies once after its first committed submission (marker: a file that exists). */
export function crashAfterSubmitEnv(marker: string): Record<string, string> {
  return { GATE_DOMAINS_MODULE: __filename, [CRASH_AFTER_SUBMIT_ENV]: marker };
}
