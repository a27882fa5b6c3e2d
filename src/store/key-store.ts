import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { brandErrorClass, ConfigurationError } from '../common/errors';
import { checkTenant, DEFAULT_TENANT, type KeyKind, type Principal } from '../common/tenant';
import { addColumnIfMissing, migrateUnderLock, PG_MIGRATION_LOCK, type Db } from './db';
import { infoOf, parseRoles, type KeyInfo, type KeyRow } from './key-row';

export { KeyKind, type Principal } from '../common/tenant';
export type { KeyInfo, KeyStatus } from './key-row';

/** A key as `create` and `rotate` hand it out: the only time the plain key exists outside its holder. */
export interface CreatedKey extends Principal {
  key: string;
  expires_at?: string;
}

/** Why `check` turned a key away; the API answers 401 with this reason. */
export type KeyRefusal = 'unknown' | 'revoked' | 'expired' | 'rotated';

/** Thrown by `create` when the id already has a live key of that kind. */
export class KeyExistsError extends ConfigurationError {
  constructor(
    readonly kind: KeyKind,
    readonly id: string,
  ) {
    super(`a ${kind} key with id "${id}" already exists`);
  }
}
brandErrorClass(KeyExistsError, 'KeyExistsError');

/** Thrown by `rotate`, `revoke` and `setRoles` when no such key is live. */
export class KeyNotFoundError extends ConfigurationError {
  constructor(
    readonly kind: KeyKind | undefined,
    readonly id: string,
    why = 'no live key',
  ) {
    super(`${why} ${kind ? `of kind ${kind} ` : ''}with id "${id}"`);
  }
}
brandErrorClass(KeyNotFoundError, 'KeyNotFoundError');

const KEY_SHAPE = /^gk_(agent|reviewer)_[A-Za-z0-9_-]{43}$/;
const ID_SHAPE = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,199}$/;
const ROLE_SHAPE = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,63}$/;
/** `last_used_at` is written at most this often per key: a read-mostly table stays read-mostly. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Constant-time equality of two hex digests (false for a missing or differently sized one). */
export function sameHash(stored: unknown, presented: string): boolean {
  if (typeof stored !== 'string' || stored.length !== presented.length) return false;
  return timingSafeEqual(Buffer.from(stored, 'utf8'), Buffer.from(presented, 'utf8'));
}

/**
 * SHA-256 of a key. A slow password hash (argon2, bcrypt) exists to make guessing a
 * low-entropy password from its hash expensive. These keys are 256 random bits, so a
 * leaked hash table gives nothing to guess: brute force is 2^256 work at any hash speed.
 * A fast hash is enough, and it lets `check` look keys up by an index.
 */
export function keyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function newKey(kind: KeyKind): string {
  return `gk_${kind}_${randomBytes(32).toString('base64url')}`;
}

/** Checks and normalises roles: sorted, distinct, each 1-64 of [A-Za-z0-9._:@/-]. Throws Error naming a bad one. */
export function checkRoles(roles: readonly string[]): string[] {
  for (const r of roles)
    if (!ROLE_SHAPE.test(r))
      throw new Error(
        `role "${r}" must be 1-64 characters of letters, digits and . _ : @ / -, starting with a letter or digit`,
      );
  return [...new Set(roles)].sort();
}

/**
 * API keys, stored as hashes only, in `api_keys`: one row per (kind, id). One id may hold
 * one key of each kind (a person who both files and reviews requests), which is exactly the
 * case the gate's self-approval rule compares ids for.
 *
 * Nothing is cached in the process: every request reads its key's row, so a revocation
 * written by any process (`gate keys revoke`, another API) refuses the key on the next
 * request everywhere. The lookup is one indexed read of a small table.
 */
export class KeyStore {
  constructor(
    private readonly db: Db,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Creates `api_keys` when missing and adds the columns later versions need (SQLite and
   * PostgreSQL alike), under the store's migration lock (`migrateUnderLock`): API processes
   * and `gate keys` starting together take turns.
   */
  async migrate(): Promise<void> {
    await migrateUnderLock(this.db, PG_MIGRATION_LOCK.keys, async (tx) => {
      await tx.run(`CREATE TABLE IF NOT EXISTS api_keys (
        kind TEXT NOT NULL CHECK (kind IN ('agent', 'reviewer')), id TEXT NOT NULL, key_sha256 TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL, PRIMARY KEY (kind, id))`);
      // Tenants came later: keys made before them belong to the default tenant.
      await addColumnIfMissing(tx, 'api_keys', 'tenant', `TEXT NOT NULL DEFAULT '${DEFAULT_TENANT}'`);
      // Key lifecycle came later still; every column is optional, so older rows stay valid keys.
      await addColumnIfMissing(tx, 'api_keys', 'roles', `TEXT NOT NULL DEFAULT '[]'`);
      for (const col of [
        'expires_at',
        'revoked_at',
        'last_used_at',
        'rotated_at',
        'prev_key_sha256',
        'prev_expires_at',
      ])
        await addColumnIfMissing(tx, 'api_keys', col, 'TEXT');
      await tx.run(`CREATE UNIQUE INDEX IF NOT EXISTS api_keys_prev_key ON api_keys (prev_key_sha256)`);
    });
  }

  /**
   * Makes a key `gk_<kind>_<43 base64url chars of 32 random bytes>` and stores its hash.
   * Returns the key once; it cannot be shown again. An id whose key was revoked may be
   * given a new one. Throws KeyExistsError for a live (kind, id), and Error for an unknown
   * kind, an id that is not 1-200 of [A-Za-z0-9._@:-], a malformed tenant or role, or an
   * expiry that is not in the future. Ids are unique across tenants, so an id in an audit
   * trail names one key holder whatever the tenant.
   */
  async create(
    kind: KeyKind,
    id: string,
    opts: { tenant?: string; roles?: string[]; expiresAt?: string } = {},
  ): Promise<CreatedKey> {
    const tenant = checkTenant(opts.tenant ?? DEFAULT_TENANT);
    if (kind !== 'agent' && kind !== 'reviewer')
      throw new Error(`key kind must be agent or reviewer, not "${String(kind)}"`);
    if (!ID_SHAPE.test(id))
      throw new Error(
        `key id "${id}" must be 1-200 characters of letters, digits and . _ @ : -, starting with a letter or digit`,
      );
    const roles = checkRoles(opts.roles ?? []);
    const expiresAt = this.futureOrUndefined(opts.expiresAt);
    const key = newKey(kind);
    const now = new Date(this.clock()).toISOString();
    // A revoked row is replaced in place: its id may hold a key again, its audit chain goes on.
    const r = await this.db.run(
      `INSERT INTO api_keys (kind, id, tenant, key_sha256, created_at, roles, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, id) DO UPDATE SET tenant = excluded.tenant, key_sha256 = excluded.key_sha256,
         created_at = excluded.created_at, roles = excluded.roles, expires_at = excluded.expires_at, revoked_at = NULL,
         last_used_at = NULL, rotated_at = NULL, prev_key_sha256 = NULL, prev_expires_at = NULL
       WHERE api_keys.revoked_at IS NOT NULL`,
      [kind, id, tenant, keyHash(key), now, JSON.stringify(roles), expiresAt ?? null],
    );
    if (r.changes === 0) throw new KeyExistsError(kind, id);
    return { tenant, id, kind, key, ...(expiresAt ? { expires_at: expiresAt } : {}) };
  }

  /**
   * The key's owner, or why it was refused. A key is refused when unknown or malformed,
   * revoked, expired, or replaced by a rotation whose grace period has ended. Records the
   * use (at most once a minute per key). The lookup is by the SHA-256 of the presented key,
   * so the index's timing can at most reveal how a hash of the attacker's own guess compares
   * with it, not bytes of a real key; the row found is still confirmed with a constant-time
   * compare, so no comparison of a stored secret ever depends on where it first differs.
   */
  async check(key: string): Promise<{ principal: Principal } | { refused: KeyRefusal; since?: string }> {
    if (typeof key !== 'string' || !KEY_SHAPE.test(key)) return { refused: 'unknown' };
    const h = keyHash(key);
    const rows = await this.db.query<KeyRow>(`SELECT * FROM api_keys WHERE key_sha256 = ? OR prev_key_sha256 = ?`, [
      h,
      h,
    ]);
    // The database finds the row by index; the match is then confirmed in constant time, byte for byte.
    const row = rows.find((r) => sameHash(r.key_sha256, h) || sameHash(r.prev_key_sha256, h));
    if (!row) return { refused: 'unknown' };
    const nowMs = this.clock();
    if (row.revoked_at) return { refused: 'revoked', since: String(row.revoked_at) };
    if (row.expires_at && Date.parse(String(row.expires_at)) <= nowMs)
      return { refused: 'expired', since: String(row.expires_at) };
    if (!sameHash(row.key_sha256, h) && !(row.prev_expires_at && Date.parse(String(row.prev_expires_at)) > nowMs))
      return { refused: 'rotated', since: String(row.prev_expires_at ?? row.rotated_at ?? '') };
    await this.touch(row, nowMs);
    const roles = parseRoles(row.roles);
    // Roles only when the key has some: a key principal is `{ tenant, kind, id }` as before lifecycle.
    return {
      principal: { tenant: String(row.tenant), id: String(row.id), kind: row.kind, ...(roles.length ? { roles } : {}) },
    };
  }

  /** The key's owner, or null for any refused key (see `check` for why). */
  async authenticate(key: string): Promise<Principal | null> {
    const r = await this.check(key);
    return 'principal' in r ? r.principal : null;
  }

  /** Writes last_used_at when the stored one is over a minute old; a racing writer of the same minute changes nothing. */
  private async touch(row: KeyRow, nowMs: number): Promise<void> {
    const last = row.last_used_at ? Date.parse(String(row.last_used_at)) : 0;
    if (nowMs - last < LAST_USED_RESOLUTION_MS) return;
    const now = new Date(nowMs).toISOString();
    const stale = new Date(nowMs - LAST_USED_RESOLUTION_MS).toISOString();
    await this.db
      .run(
        `UPDATE api_keys SET last_used_at = ? WHERE kind = ? AND id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`,
        [now, row.kind, row.id, stale],
      )
      .catch(() => undefined); // bookkeeping: a failed write must not refuse a valid key
  }

  /** Every key's holder, roles and life (of one tenant when given), never the key or its hash. */
  async list(opts: { tenant?: string } = {}): Promise<KeyInfo[]> {
    const where = opts.tenant === undefined ? '' : ' WHERE tenant = ?';
    const rows = await this.db.query<KeyRow>(
      `SELECT * FROM api_keys${where} ORDER BY tenant, kind, id`,
      opts.tenant === undefined ? [] : [opts.tenant],
    );
    const nowMs = this.clock();
    return rows.map((r) => infoOf(r, nowMs));
  }

  /** Keys with this id (one per kind at most), optionally of one kind. */
  async find(id: string, kind?: KeyKind): Promise<KeyInfo[]> {
    const rows = await this.db.query<KeyRow>(
      `SELECT * FROM api_keys WHERE id = ?${kind ? ' AND kind = ?' : ''} ORDER BY kind`,
      kind ? [id, kind] : [id],
    );
    const nowMs = this.clock();
    return rows.map((r) => infoOf(r, nowMs));
  }

  /**
   * Revokes a key at once: every process refuses it on its next request. The row stays
   * (for `list` and the audit trail). Throws KeyNotFoundError when no live key matches.
   */
  async revoke(kind: KeyKind, id: string): Promise<KeyInfo> {
    const now = new Date(this.clock()).toISOString();
    const r = await this.db.run(
      `UPDATE api_keys SET revoked_at = ?, prev_key_sha256 = NULL, prev_expires_at = NULL
       WHERE kind = ? AND id = ? AND revoked_at IS NULL`,
      [now, kind, id],
    );
    if (r.changes === 0) throw new KeyNotFoundError(kind, id);
    return (await this.find(id, kind))[0]!;
  }

  /**
   * Gives the holder a new key; the current one keeps working for `graceSeconds` (0: stops
   * now), so a service can roll the new key out before the old one dies. A key already in
   * a grace period loses it: only the current and the new key are ever live. Expiry stays,
   * unless `expiresAt` sets a new one. Throws KeyNotFoundError for no live key.
   */
  async rotate(
    kind: KeyKind,
    id: string,
    opts: { graceSeconds: number; expiresAt?: string },
  ): Promise<CreatedKey & { previous_key_until: string }> {
    if (!Number.isInteger(opts.graceSeconds) || opts.graceSeconds < 0)
      throw new Error(`grace period must be a whole number of seconds, not ${opts.graceSeconds}`);
    const expiresAt = this.futureOrUndefined(opts.expiresAt);
    const nowMs = this.clock();
    const now = new Date(nowMs).toISOString();
    const until = new Date(nowMs + opts.graceSeconds * 1000).toISOString();
    const key = newKey(kind);
    const r = await this.db.run(
      `UPDATE api_keys SET prev_key_sha256 = key_sha256, prev_expires_at = ?, key_sha256 = ?, rotated_at = ?,
         expires_at = COALESCE(?, expires_at)
       WHERE kind = ? AND id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`,
      [until, keyHash(key), now, expiresAt ?? null, kind, id, now],
    );
    if (r.changes === 0) throw new KeyNotFoundError(kind, id);
    const info = (await this.find(id, kind))[0]!;
    return {
      tenant: info.tenant,
      id,
      kind,
      key,
      previous_key_until: until,
      ...(info.expires_at ? { expires_at: info.expires_at } : {}),
    };
  }

  /** Replaces a live key's roles (checked like `create`'s). Throws KeyNotFoundError for no live key. */
  async setRoles(kind: KeyKind, id: string, roles: string[]): Promise<KeyInfo> {
    const clean = checkRoles(roles);
    const r = await this.db.run(`UPDATE api_keys SET roles = ? WHERE kind = ? AND id = ? AND revoked_at IS NULL`, [
      JSON.stringify(clean),
      kind,
      id,
    ]);
    if (r.changes === 0) throw new KeyNotFoundError(kind, id);
    return (await this.find(id, kind))[0]!;
  }

  private futureOrUndefined(at: string | undefined): string | undefined {
    if (at === undefined) return undefined;
    const ms = Date.parse(at);
    if (!(ms > this.clock())) throw new Error(`key expiry ${at} is not a time in the future`);
    return new Date(ms).toISOString();
  }
}
