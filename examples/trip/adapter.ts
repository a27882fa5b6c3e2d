import type { Db } from 'approval-gate/worker';
import type { DomainAdapter, DomainSource } from 'approval-gate/worker';
import { migrateTripStore } from './schema';
import { listSubmissions } from './store';
import { executeTripTool } from './execute';
import { tripKeyUsed } from './idempotency';
import { planTripCall, recheckTripCall, tripPermittedTools } from './planning';
import { reviseTripCall } from './revise';
import { TRIP_TOOLS } from './tools';

/**
 * The business-trip domain over one store (SQLite or PostgreSQL). The store must be
 * migrated first (`migrateTripStore`); the adapter itself holds no state, so any
 * number of workers may share the database.
 */
export function createTripDomain(db: Db): DomainAdapter {
  return {
    name: 'trip',
    tools: TRIP_TOOLS,
    // Mounted under /v1/domains/trip by the API.
    routes: (app, { requireKey, visibleSessions }) => {
      // A submission belongs to its run (session): the caller sees those of the runs it may see.
      app.get('/submissions', { onRequest: requireKey() }, async (req) =>
        listSubmissions(db, { sessionIds: await visibleSessions(req) }),
      );
    },
    permittedTools: (sessionId) => tripPermittedTools(db, sessionId),
    plan: (sessionId, tool, args) => planTripCall(db, sessionId, tool, args),
    recheck: (sessionId, tool, input, snapshot) => recheckTripCall(db, sessionId, tool, input, snapshot),
    revise: (sessionId, tool, input, patch) => reviseTripCall(db, sessionId, tool, input, patch),
    execute: (sessionId, tool, input, idempotencyKey) => executeTripTool(db, sessionId, tool, input, idempotencyKey),
    executed: (_sessionId, _tool, idempotencyKey) => tripKeyUsed(db, idempotencyKey),
  };
}

/**
 * The trip domain as a worker or the API registers it, the same way a user registers
 * their own: a factory that migrates its tables in the gate's store, then builds the adapter.
 */
export const tripDomain: DomainSource = async ({ db }) => {
  await migrateTripStore(db);
  return createTripDomain(db);
};
