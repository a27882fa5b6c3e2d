/** The example "business trips" domain (DESIGN section 7). */
export { createTripDomain, tripDomain } from './adapter';
export { migrateTripStore } from './schema';
export { listSubmissions, type TripSubmission } from './store';
export { TRIP_TOOLS } from './tools';
export { CRASH_AFTER_SUBMIT_ENV } from './execute';
