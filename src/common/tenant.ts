/**
 * Tenants and the caller's scope. Every API key belongs to one tenant; everything a key
 * can see or change (gates, runs, audit trails, interactions, domain rows) is the
 * tenant's. Pure: the API, the clients and the stores share these rules.
 */

/** The tenant of every key made before tenants existed and of every gate started without one. */
export const DEFAULT_TENANT = 'default';

/** Tenant ids: lower-case letters, digits, `_` and `-`, 1-63 characters, starting with a letter or digit. */
export const TENANT_SHAPE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Throws unless `tenant` is a valid tenant id. */
export function checkTenant(tenant: string): string {
  if (typeof tenant !== 'string' || !TENANT_SHAPE.test(tenant))
    throw new Error(
      `tenant "${String(tenant)}" must be 1-63 characters of lower-case letters, digits, _ and -, starting with a letter or digit`,
    );
  return tenant;
}

/** Agent keys request and consume; reviewer keys decide. The two never stand in for each other. */
export const KeyKind = { Agent: 'agent', Reviewer: 'reviewer' } as const;
export type KeyKind = (typeof KeyKind)[keyof typeof KeyKind];

/** The authenticated caller: whose key it is, of which kind, in which tenant. */
export interface Principal {
  tenant: string;
  kind: KeyKind;
  id: string;
  /** A reviewer's roles (its key's, or the ID token's roles claim), checked against the request's rule. */
  roles?: string[];
  /** Set for a person signed in with an OpenID Connect ID token; absent for an API key. */
  via?: 'oidc';
  /** With `via: 'oidc'`: the issuer whose ID token named the person (`id` is its subject). */
  issuer?: string;
}

/**
 * What a caller may see. Reviewers see their tenant's whole queue; agents see only what
 * they opened themselves (their requests and runs) inside their tenant.
 */
export interface Scope {
  tenant: string;
  /** Set for agent callers: only what this agent owns is visible. */
  agentId?: string;
}

export function scopeOf(p: Principal): Scope {
  return p.kind === 'agent' ? { tenant: p.tenant, agentId: p.id } : { tenant: p.tenant };
}

/** What a gate or run says about its owner; a missing tenant is the default tenant's. */
export interface Ownership {
  tenant?: string;
  agentId?: string;
}

/**
 * True when the scope may see something owned so. Anything it may not see answers
 * exactly like something that does not exist (404), so ids of other tenants leak nothing.
 */
export function visibleTo(scope: Scope, owner: Ownership): boolean {
  if ((owner.tenant || DEFAULT_TENANT) !== scope.tenant) return false;
  return scope.agentId === undefined || owner.agentId === scope.agentId;
}
