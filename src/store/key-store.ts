import { createHash, randomBytes } from 'node:crypto';
import { checkTenant, DEFAULT_TENANT, type KeyKind, type Principal } from '../core/tenant';
import { addColumnIfMissing, type Db } from './db';

export { KeyKind, type Principal } from '../core/tenant';

/** A key as `create` hands it out: the only time the plain key exists outside its holder. */
export interface CreatedKey extends Principal {
  key: string;
}

/** A stored key without its secret. */
export interface KeyInfo extends Principal {
  created_at: string;
}

/** Thrown by `create` when the id already has a key of that kind. */
export class KeyExistsError extends Error {
  constructor(
    readonly kind: KeyKind,
    readonly id: string,
  ) {
    super(`a ${kind} key with id "${id}" already exists`);
    this.name = new.target.name;
  }
}

const KEY_SHAPE = /^gk_(agent|reviewer)_[A-Za-z0-9_-]{43}$/;
const ID_SHAPE = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,199}$/;

/**
 * SHA-256 of a key. A slow password hash (argon2, bcrypt) exists to make guessing a
 * low-entropy password from its hash expensive. These keys are 256 random bits, so a
 * leaked hash table gives nothing to guess: brute force is 2^256 work at any hash speed.
 * A fast hash is enough, and it lets `authenticate` look keys up by an index.
 */
export function keyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * API keys, stored as hashes only, in `api_keys`. One id may hold one key of each kind
 * (a person who both files and reviews requests), which is exactly the case the gate's
 * self-approval rule compares ids for.
 */
export class KeyStore {
  constructor(private readonly db: Db) {}

  /** Creates `api_keys` when missing (SQLite and PostgreSQL alike). */
  async migrate(): Promise<void> {
    await this.db.run(`CREATE TABLE IF NOT EXISTS api_keys (
      kind TEXT NOT NULL CHECK (kind IN ('agent', 'reviewer')), id TEXT NOT NULL, key_sha256 TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL, PRIMARY KEY (kind, id))`);
    // Tenants came later: keys made before them belong to the default tenant.
    await addColumnIfMissing(this.db, 'api_keys', 'tenant', `TEXT NOT NULL DEFAULT '${DEFAULT_TENANT}'`);
  }

  /**
   * Makes a key `gk_<kind>_<43 base64url chars of 32 random bytes>` and stores its hash.
   * Returns the key once; it cannot be shown again. Throws KeyExistsError for a taken
   * (kind, id), and Error for an unknown kind, an id that is not 1-200 of [A-Za-z0-9._@:-]
   * or a malformed tenant. Ids are unique across tenants, so an id in an audit trail
   * names one key holder whatever the tenant.
   */
  async create(kind: KeyKind, id: string, opts: { tenant?: string } = {}): Promise<CreatedKey> {
    const tenant = checkTenant(opts.tenant ?? DEFAULT_TENANT);
    if (kind !== 'agent' && kind !== 'reviewer')
      throw new Error(`key kind must be agent or reviewer, not "${String(kind)}"`);
    if (!ID_SHAPE.test(id))
      throw new Error(
        `key id "${id}" must be 1-200 characters of letters, digits and . _ @ : -, starting with a letter or digit`,
      );
    const key = `gk_${kind}_${randomBytes(32).toString('base64url')}`;
    const r = await this.db.run(
      `INSERT INTO api_keys (kind, id, tenant, key_sha256, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, id) DO NOTHING`,
      [kind, id, tenant, keyHash(key), new Date().toISOString()],
    );
    if (r.changes === 0) throw new KeyExistsError(kind, id);
    return { tenant, id, kind, key };
  }

  /**
   * The key's owner, or null for an unknown or malformed key. No constant-time compare is
   * needed: the lookup is by the SHA-256 of the presented key, so timing can at most reveal
   * how a hash of the attacker's own guess compares with an index, not bytes of a real key.
   */
  async authenticate(key: string): Promise<Principal | null> {
    if (typeof key !== 'string' || !KEY_SHAPE.test(key)) return null;
    const rows = await this.db.query<{ id: string; kind: KeyKind; tenant: string }>(
      `SELECT id, kind, tenant FROM api_keys WHERE key_sha256 = ?`,
      [keyHash(key)],
    );
    const row = rows[0];
    return row ? { tenant: String(row.tenant), id: String(row.id), kind: row.kind } : null;
  }

  /** Every key's owner, tenant and creation time (of one tenant when given), never the key or its hash. */
  async list(opts: { tenant?: string } = {}): Promise<KeyInfo[]> {
    const where = opts.tenant === undefined ? '' : ' WHERE tenant = ?';
    const rows = await this.db.query<KeyInfo>(
      `SELECT tenant, kind, id, created_at FROM api_keys${where} ORDER BY tenant, kind, id`,
      opts.tenant === undefined ? [] : [opts.tenant],
    );
    return rows.map((r) => ({
      tenant: String(r.tenant),
      kind: r.kind,
      id: String(r.id),
      created_at: String(r.created_at),
    }));
  }

  /** Deletes a key; returns false when there was none. */
  async revoke(kind: KeyKind, id: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM api_keys WHERE kind = ? AND id = ?`, [kind, id])).changes > 0;
  }
}
