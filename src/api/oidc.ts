import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { GateError } from '../client/gate-error';
import { checkTenant, DEFAULT_TENANT, TENANT_SHAPE } from '../common/tenant';

/** How the API trusts an OpenID Connect issuer (GATE_OIDC_* variables). */
export interface OidcSettings {
  /** GATE_OIDC_ISSUER: the `iss` of accepted ID tokens; discovery is read from `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** GATE_OIDC_AUDIENCE: the `aud` an ID token must name (the client id the IdP issued it for). */
  audience: string;
  /** GATE_OIDC_ROLES_CLAIM (default `roles`): the claim holding the person's roles; a dotted path reads nested claims. */
  rolesClaim: string;
  /** GATE_OIDC_CLIENT_ID: the reviewer page's client at the IdP; the page's sign-in is off without it. */
  clientId?: string;
  /** GATE_OIDC_CLIENT_SECRET: for a confidential client (client_secret_basic); PKCE is used either way. */
  clientSecret?: string;
  /** GATE_OIDC_REDIRECT_URI: where the IdP sends the person back (`<api>/auth/callback`). */
  redirectUri?: string;
  /** GATE_OIDC_SCOPES (default `openid profile`): scopes the page asks for; add the one that carries roles. */
  scopes: string;
  /** GATE_OIDC_TENANT (default `default`): the tenant of every person signed in, unless a tenant claim is set. */
  tenant: string;
  /** GATE_OIDC_TENANT_CLAIM: a claim naming the person's tenant; a token without a valid one is refused. */
  tenantClaim?: string;
}

/** The IdP endpoints the API uses, from its discovery document. */
export interface OidcMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

/** A person as an ID token names them. */
export interface OidcIdentity {
  /** The subject: the reviewer id in decisions and the audit trail. */
  sub: string;
  /** The tenant whose queue the person reviews. */
  tenant: string;
  roles: string[];
  name?: string;
}

/** Signature algorithms accepted: asymmetric only, so a token cannot be signed with a shared secret or `none`. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** True when a bearer token has the shape of a JWT (three base64url parts), so it is not an API key. */
export function looksLikeJwt(token: string): boolean {
  return token.length < 16_384 && JWT_SHAPE.test(token);
}

/**
 * Verifies ID tokens against the issuer's JWKS: signature, `iss`, `aud`, `exp` (30 s of
 * clock skew), and a `sub` of at most 200 characters. Discovery and the key set are
 * fetched on first use and cached; jose refetches the key set when a token names a key
 * id it has not seen (the IdP rotated its keys), at most once every 30 s.
 */
export class OidcVerifier {
  private meta?: Promise<OidcMetadata>;
  private jwks?: ReturnType<typeof createRemoteJWKSet>;

  constructor(readonly settings: OidcSettings) {}

  /** The discovery document; a failed fetch is not cached, so the next call tries again. */
  metadata(): Promise<OidcMetadata> {
    this.meta ??= discover(this.settings.issuer).catch((err: unknown) => {
      this.meta = undefined;
      throw err;
    });
    return this.meta;
  }

  /**
   * The person an ID token names. Throws GateError 401 with the reason (expired, wrong
   * audience, bad signature, ...), or 503 when the issuer cannot be reached.
   */
  async verify(token: string, opts: { nonce?: string } = {}): Promise<OidcIdentity> {
    const meta = await this.metadata();
    this.jwks ??= createRemoteJWKSet(new URL(meta.jwks_uri), { cooldownDuration: 30_000, timeoutDuration: 5_000 });
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: ALGORITHMS,
        clockTolerance: 30,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWKSTimeout || (err instanceof TypeError && /fetch/i.test(err.message)))
        throw new GateError(503, 'oidc_unavailable', `the OpenID issuer's keys could not be fetched: ${err.message}`);
      throw new GateError(401, 'unauthenticated', `ID token refused: ${reasonOf(err)}`);
    }
    if (opts.nonce !== undefined && payload.nonce !== opts.nonce)
      throw new GateError(401, 'unauthenticated', 'ID token refused: its nonce is not the one this sign-in sent');
    const sub = payload.sub!;
    if (sub.length > 200) throw new GateError(401, 'unauthenticated', 'ID token refused: sub is over 200 characters');
    const name = typeof payload.name === 'string' ? payload.name : undefined;
    const tenant = this.tenantOf(payload);
    return { sub, tenant, roles: rolesAt(payload, this.settings.rolesClaim), ...(name ? { name } : {}) };
  }

  private tenantOf(payload: JWTPayload): string {
    const claim = this.settings.tenantClaim;
    if (!claim) return this.settings.tenant;
    const v = payload[claim];
    if (typeof v !== 'string' || !TENANT_SHAPE.test(v))
      throw new GateError(401, 'unauthenticated', `ID token refused: claim ${claim} does not name a tenant`);
    return v;
  }
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'it has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed)
    return `claim ${err.claim} ${err.reason === 'check_failed' ? 'does not match' : err.reason}`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (err instanceof joseErrors.JWKSNoMatchingKey) return "no key of the issuer's key set signed it";
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'its signature algorithm is not accepted';
  return err instanceof Error ? err.message : String(err);
}

/** Roles at a dotted claim path: an array of strings, or one space-separated string (as some IdPs send). */
export function rolesAt(payload: Record<string, unknown>, claim: string): string[] {
  let v: unknown = payload;
  for (const part of claim.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, part)) return [];
    v = (v as Record<string, unknown>)[part];
  }
  const list = typeof v === 'string' ? v.split(/\s+/) : Array.isArray(v) ? v : [];
  return [...new Set(list.filter((r): r is string => typeof r === 'string' && r.length > 0 && r.length <= 64))].slice(
    0,
    50,
  );
}

async function discover(issuer: string): Promise<OidcMetadata> {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(5000), headers: { accept: 'application/json' } });
  } catch (err) {
    throw new GateError(
      503,
      'oidc_unavailable',
      `the OpenID issuer could not be reached at ${url}: ${(err as Error).message}`,
    );
  }
  const doc = (await res.json().catch(() => null)) as Partial<OidcMetadata> | null;
  if (!res.ok || !doc)
    throw new GateError(503, 'oidc_unavailable', `${url} answered ${res.status} without a discovery document`);
  // OpenID Discovery: the document's issuer must be exactly the configured one.
  if (doc.issuer !== issuer)
    throw new GateError(
      503,
      'oidc_misconfigured',
      `${url} names issuer ${String(doc.issuer)}, not GATE_OIDC_ISSUER=${issuer}`,
    );
  for (const k of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const)
    if (typeof doc[k] !== 'string') throw new GateError(503, 'oidc_misconfigured', `${url} has no ${k}`);
  return doc as OidcMetadata;
}

/** Reads the GATE_OIDC_* variables; undefined when GATE_OIDC_ISSUER is unset. Throws naming a missing companion. */
export function oidcSettingsFrom(env: NodeJS.ProcessEnv, defaults: { redirectUri: string }): OidcSettings | undefined {
  const issuer = env.GATE_OIDC_ISSUER;
  if (!issuer) return undefined;
  const clientId = env.GATE_OIDC_CLIENT_ID || undefined;
  const audience = env.GATE_OIDC_AUDIENCE || clientId;
  if (!audience) throw new Error('GATE_OIDC_ISSUER is set: set GATE_OIDC_AUDIENCE (or GATE_OIDC_CLIENT_ID) too');
  if (!/^https?:\/\//.test(issuer)) throw new Error(`GATE_OIDC_ISSUER=${issuer} is not an http(s) URL`);
  return {
    issuer,
    audience,
    rolesClaim: env.GATE_OIDC_ROLES_CLAIM || 'roles',
    clientId,
    clientSecret: env.GATE_OIDC_CLIENT_SECRET || undefined,
    redirectUri: env.GATE_OIDC_REDIRECT_URI || defaults.redirectUri,
    scopes: env.GATE_OIDC_SCOPES || 'openid profile',
    tenant: checkTenant(env.GATE_OIDC_TENANT || DEFAULT_TENANT),
    tenantClaim: env.GATE_OIDC_TENANT_CLAIM || undefined,
  };
}
