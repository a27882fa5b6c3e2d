import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { GateError } from '../client/gate-error';
import type { ReviewerAuth } from '../common/decision';
import { scopeOf, type KeyKind, type Principal, type Scope } from '../common/tenant';
import type { KeyStore } from '../store/key-store';
import { looksLikeJwt, type OidcVerifier } from './oidc';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key's owner; set by `requireKey`. */
    principal?: Principal;
  }
}

/** A route hook that authenticates the caller; builds for one key kind or for any. */
export type RequireKey = (kind?: KeyKind) => onRequestAsyncHookHandler;

/**
 * Authentication as an `onRequest` hook, so an unauthenticated body is never parsed.
 * Throws 401 without `Authorization: Bearer <key>` or with an unknown key, 403 when the
 * key is of the other kind (an agent key on a decision).
 */
export function keyAuth(keys: KeyStore, oidc?: OidcVerifier): RequireKey {
  return (kind) =>
    async function authenticate(req: FastifyRequest): Promise<void> {
      const header = req.headers.authorization;
      const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
      if (!m) throw new GateError(401, 'unauthenticated', 'send an API key as "Authorization: Bearer <key>"');
      const token = m[1]!;
      // An ID token is a person signed in at the IdP: always a reviewer, named by its subject.
      const principal = oidc && looksLikeJwt(token) ? await personOf(oidc, token) : await keyOwner(keys, token);
      if (kind && principal.kind !== kind) {
        throw new GateError(
          403,
          'wrong_key_kind',
          `this endpoint needs a ${kind} key; "${principal.id}" authenticated with a ${principal.kind} key`,
        );
      }
      req.principal = principal;
    };
}

async function personOf(oidc: OidcVerifier, token: string): Promise<Principal> {
  const person = await oidc.verify(token);
  // jwtVerify accepted the token only with `iss` equal to the configured issuer.
  const issuer = oidc.settings.issuer;
  return { tenant: person.tenant, id: person.sub, kind: 'reviewer', roles: person.roles, via: 'oidc', issuer };
}

const REFUSED = {
  unknown: 'unknown API key',
  revoked: 'this API key was revoked',
  expired: 'this API key has expired',
  rotated: 'this API key was replaced by a rotation and its grace period is over',
} as const;

/** The key's holder; 401 naming why a known key no longer works (revoked, expired, rotated out). */
async function keyOwner(keys: KeyStore, token: string): Promise<Principal> {
  const r = await keys.check(token);
  if ('principal' in r) return r.principal;
  throw new GateError(401, 'unauthenticated', r.since ? `${REFUSED[r.refused]} (${r.since})` : REFUSED[r.refused]);
}

/**
 * The authenticated caller `{ tenant, kind, id }`: the one place routes get identity
 * from. Throws 401 if a route forgot its hook.
 */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new GateError(401, 'unauthenticated', 'this route needs an API key');
  return req.principal;
}

/** How the caller authenticated, for the audit trail: an API key by its id, or an ID token by issuer and subject. */
export function authOf(p: Principal): ReviewerAuth {
  return p.via === 'oidc' && p.issuer
    ? { method: 'oidc', issuer: p.issuer, subject: p.id }
    : { method: 'api_key', key_id: p.id };
}

/** What the caller may see: its tenant, and for an agent key only its own requests and runs. */
export function scopeOfRequest(req: FastifyRequest): Scope {
  return scopeOf(principalOf(req));
}
