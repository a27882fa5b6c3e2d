import { createHash } from 'node:crypto';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GateError } from '../client/gate-error';
import { toHttpError } from './errors';
import type { HttpLimits } from './http-limits';

export { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http-limits';

/** The strict policy of every answer that is not the reviewer page (which sends its own, with its hashes). */
const API_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
  },
};

/** A bucket per presented key (hashed, so no key sits in memory as the limiter's map key), else per address. */
function limitKey(req: FastifyRequest): string {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.length > 0)
    return `key:${createHash('sha256').update(auth).digest('base64url').slice(0, 22)}`;
  return `ip:${req.ip}`;
}

function tooMany(what: string, after: string): GateError {
  return new GateError(429, 'rate_limited', `${what}; retry in ${after}`);
}

/**
 * Security headers and per-key rate limits for every route registered after this (the
 * plugins hook into route registration, so the server registers its routes in a child
 * scope that loads after them). CORS stays closed: no route sends
 * Access-Control-Allow-Origin, so no other origin's page can read an answer, and a
 * preflight finds no OPTIONS route.
 */
export function registerHardening(app: FastifyInstance, limits: HttpLimits): void {
  void app.register(helmet, {
    contentSecurityPolicy: API_CSP,
    frameguard: { action: 'deny' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  void app.register(rateLimit, {
    global: limits.requestsPerMinute > 0,
    max: limits.requestsPerMinute || 1,
    timeWindow: 60_000,
    keyGenerator: limitKey,
    errorResponseBuilder: (_req, ctx) => tooMany(`over ${ctx.max} requests a minute for this key`, ctx.after),
  });
}

/**
 * Counts 401 answers per client address and, once `limits.authFailures` are reached, turns
 * that address's further 401s into 429 (with Retry-After), so that trying keys in bulk
 * stops quickly whichever keys are tried. Only failed attempts are throttled: a request
 * whose credential is valid never meets this limit, because agents share egress addresses
 * and one misconfigured agent must not lock out every good one. Call in the scope that
 * holds the routes (its error handler sees their 401s before the parent's answers them).
 */
export function guardAuthFailures(api: FastifyInstance, limits: HttpLimits): void {
  if (limits.authFailures <= 0) return;
  const failures = api.createRateLimit({
    max: limits.authFailures,
    timeWindow: limits.authFailureWindowMs,
    keyGenerator: (req) => `auth-failures:${req.ip}`,
  });
  api.setErrorHandler(async (err, req, reply) => {
    if (toHttpError(err).status === 401) {
      const r = await failures(req, { increment: false });
      if (!r.isAllowed && r.remaining <= 0) {
        void reply.header('retry-after', String(Math.max(1, r.ttlInSeconds)));
        throw tooMany(`too many failed authentications from this address`, `${Math.max(1, r.ttlInSeconds)} s`);
      }
    }
    throw err; // the parent's handler answers it (installErrorHandlers)
  });
  api.addHook('onResponse', async (req, reply) => {
    if (reply.statusCode === 401) await failures(req);
  });
}
