import type { Db } from '../../store/db';
import type { DomainAdapter } from '../types';
import { executeTripTool } from './execute';
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
    permittedTools: (sessionId) => tripPermittedTools(db, sessionId),
    plan: (sessionId, tool, args) => planTripCall(db, sessionId, tool, args),
    recheck: (sessionId, tool, input, snapshot) => recheckTripCall(db, sessionId, tool, input, snapshot),
    revise: (sessionId, tool, input, patch) => reviseTripCall(db, sessionId, tool, input, patch),
    execute: (sessionId, tool, input, idempotencyKey) => executeTripTool(db, sessionId, tool, input, idempotencyKey),
  };
}
