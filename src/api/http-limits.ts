/** Request limits of the HTTP API; a limit of 0 turns that limit off. */
export interface HttpLimits {
  /** Requests a minute per API key (per client address for routes without a key). */
  requestsPerMinute: number;
  /** Failed authentications (401) per client address within `authFailureWindowMs`; past it, that address's failed attempts get 429 (a valid key still passes). */
  authFailures: number;
  authFailureWindowMs: number;
}

/**
 * 20 requests a second per key is far above what an agent or a reviewer sends and far
 * below what it takes to flood the gate; 100 failed keys in five minutes is more than
 * any misconfigured client retries, and far too few to guess anything.
 */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestsPerMinute: 1200,
  authFailures: 100,
  authFailureWindowMs: 5 * 60_000,
};
