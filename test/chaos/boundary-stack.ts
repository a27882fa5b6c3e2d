import { createTripDomain, migrateTripStore } from '../../examples/trip';
import type { DomainSource } from '../../src/domain/types';
import { holdAtBoundaries, interceptors } from './boundaries';

// What the chaos stack's API and workers load (boundaryStackEnv in test/chaos/boundaries.ts):
// the trip example whose re-check and tool pause at their boundaries, and the interceptor that
// pauses the audit batches. Apart from test/chaos/boundaries.ts, whose importers (the production
// suite's global setup) resolve `approval-gate` without jest's module map.

/** The trip example with the holds (GATE_DOMAINS_MODULE). */
export const domains: DomainSource[] = [
  async ({ db }) => {
    await migrateTripStore(db);
    return holdAtBoundaries(createTripDomain(db));
  },
];

/** The audit batches' holds (GATE_WORKER_INTERCEPTORS_MODULE). */
export { interceptors };
