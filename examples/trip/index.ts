// The example "business trips" domain (docs/agent-runs.md). A module the gate loads through
// GATE_DOMAINS_MODULE exports `domains`; `gate dev` loads this one when none is named.
import { tripDomain } from './adapter';

export { createTripDomain, tripDomain } from './adapter';
export { migrateTripStore } from './schema';
export { listSubmissions, type TripSubmission } from './store';
export { TRIP_TOOLS } from './tools';

export const domains = [tripDomain];
