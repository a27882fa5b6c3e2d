import type { KeyKind, Principal } from '../common/tenant';

// One `api_keys` row as the database returns it, and what it means at a given time.

/** A stored key without its secret: who holds it, what it may do, and where it is in its life. */
export interface KeyInfo extends Principal {
  roles: string[];
  status: KeyStatus;
  created_at: string;
  expires_at?: string;
  revoked_at?: string;
  last_used_at?: string;
  rotated_at?: string;
  /** While a rotation's grace period runs: when the previous key stops working. */
  previous_key_until?: string;
}

/** A row of `api_keys`; times are ISO strings, null when unset. */
export interface KeyRow {
  tenant: string;
  kind: KeyKind;
  id: string;
  key_sha256: string;
  created_at: string;
  roles: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  rotated_at: string | null;
  prev_key_sha256: string | null;
  prev_expires_at: string | null;
}

/** Where a key is in its life: `active` (maybe with a previous key in its grace period), `expired` or `revoked`. */
export type KeyStatus = 'active' | 'expired' | 'revoked';

export function keyStatus(r: Pick<KeyRow, 'revoked_at' | 'expires_at'>, nowMs: number): KeyStatus {
  if (r.revoked_at) return 'revoked';
  if (r.expires_at && Date.parse(String(r.expires_at)) <= nowMs) return 'expired';
  return 'active';
}

export function parseRoles(raw: unknown): string[] {
  try {
    const v: unknown = JSON.parse(String(raw ?? '[]'));
    return Array.isArray(v) ? v.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}

export function infoOf(r: KeyRow, nowMs: number): KeyInfo {
  const opt = (k: keyof KeyRow) => (r[k] ? { [k]: String(r[k]) } : {});
  const graceLive = r.prev_expires_at && Date.parse(String(r.prev_expires_at)) > nowMs;
  return {
    tenant: String(r.tenant),
    kind: r.kind,
    id: String(r.id),
    roles: parseRoles(r.roles),
    status: keyStatus(r, nowMs),
    created_at: String(r.created_at),
    ...opt('expires_at'),
    ...opt('revoked_at'),
    ...opt('last_used_at'),
    ...opt('rotated_at'),
    ...(graceLive ? { previous_key_until: String(r.prev_expires_at) } : {}),
  };
}
