import type { IssuedGrant } from '../common/gate-types';
import { migrateUnderLock, PG_MIGRATION_LOCK, type Db } from './db';

/** Where a grant stands: usable, used up, past its time, or withdrawn. */
export type GrantStatus = 'active' | 'exhausted' | 'expired' | 'revoked';

/** A standing grant as stored and listed (`GET /v1/grants`, `gate grants list`). */
export interface GrantRecord extends IssuedGrant {
  tenant: string;
  uses: number;
  status: GrantStatus;
  revoked_at?: string;
  revoked_by?: string;
}

/** What one use attempt did. `reused`: this request had already used the grant (a retried create). */
export type GrantUse = 'used' | 'reused' | 'unavailable';

/**
 * Standing grants (src/common/gate-policy.ts gives them, the create path uses them), in
 * the gate's store, SQLite or PostgreSQL. A use is counted once per request id, in one
 * transaction with the check of time, uses and revocation, so two creates at once cannot
 * both take a grant's last use.
 */
export class GrantStore {
  constructor(private readonly db: Db) {}

  async migrate(): Promise<void> {
    await migrateUnderLock(this.db, PG_MIGRATION_LOCK.grants, async (tx) => {
      await tx.run(`CREATE TABLE IF NOT EXISTS policy_grants (
        grant_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, agent_id TEXT NOT NULL, action TEXT NOT NULL,
        target TEXT NOT NULL, rule_id TEXT NOT NULL, policy_sha256 TEXT NOT NULL, when_expr TEXT,
        for_seconds INTEGER NOT NULL, max_uses INTEGER NOT NULL, uses INTEGER NOT NULL DEFAULT 0,
        request_id TEXT NOT NULL, reviewers TEXT NOT NULL, issued_at TEXT NOT NULL, expires_at TEXT NOT NULL,
        revoked_at TEXT, revoked_by TEXT)`);
      await tx.run(
        `CREATE INDEX IF NOT EXISTS policy_grants_subject ON policy_grants (tenant, agent_id, action, target)`,
      );
      await tx.run(`CREATE TABLE IF NOT EXISTS policy_grant_uses (
        grant_id TEXT NOT NULL, request_id TEXT NOT NULL, used_at TEXT NOT NULL, PRIMARY KEY (grant_id, request_id))`);
    });
  }

  /** Stores a grant a quorum gave; true when it is new (a retried decision stores it once). */
  async issue(g: IssuedGrant, tenant: string): Promise<boolean> {
    const r = await this.db.run(
      `INSERT INTO policy_grants (grant_id, tenant, agent_id, action, target, rule_id, policy_sha256, when_expr,
         for_seconds, max_uses, uses, request_id, reviewers, issued_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?) ON CONFLICT (grant_id) DO NOTHING`,
      [
        g.grant_id,
        tenant,
        g.agent_id,
        g.action,
        g.target,
        g.rule_id,
        g.policy_sha256,
        g.when ?? null,
        g.for_seconds,
        g.max_uses,
        g.request_id,
        JSON.stringify(g.reviewers),
        g.issued_at,
        g.expires_at,
      ],
    );
    return r.changes > 0;
  }

  /** Usable grants for this tenant, agent, action and target under `rule_id`, oldest first. */
  async candidates(
    q: { tenant: string; agent_id: string; action: string; target: string; rule_id: string },
    now = new Date().toISOString(),
  ): Promise<GrantRecord[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM policy_grants WHERE tenant = ? AND agent_id = ? AND action = ? AND target = ? AND rule_id = ?
         AND revoked_at IS NULL AND expires_at > ? AND uses < max_uses ORDER BY issued_at, grant_id`,
      [q.tenant, q.agent_id, q.action, q.target, q.rule_id, now],
    );
    return rows.map((r) => recordOf(r, now));
  }

  /** Takes one use of a grant for a request, unless it is used up, expired or revoked. */
  async use(grantId: string, requestId: string, now = new Date().toISOString()): Promise<GrantUse> {
    return this.db.transaction(async (tx) => {
      const seen = await tx.query(`SELECT 1 FROM policy_grant_uses WHERE grant_id = ? AND request_id = ?`, [
        grantId,
        requestId,
      ]);
      if (seen.length > 0) return 'reused';
      const taken = await tx.run(
        `UPDATE policy_grants SET uses = uses + 1
           WHERE grant_id = ? AND uses < max_uses AND revoked_at IS NULL AND expires_at > ?`,
        [grantId, now],
      );
      if (taken.changes === 0) return 'unavailable';
      await tx.run(`INSERT INTO policy_grant_uses (grant_id, request_id, used_at) VALUES (?, ?, ?)`, [
        grantId,
        requestId,
        now,
      ]);
      return 'used';
    });
  }

  /** One tenant's grants, newest first (all, or only the usable ones). */
  async list(tenant: string, opts: { active?: boolean; limit?: number } = {}): Promise<GrantRecord[]> {
    const now = new Date().toISOString();
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM policy_grants WHERE tenant = ? ORDER BY issued_at DESC, grant_id LIMIT ?`,
      [tenant, Math.min(Math.max(opts.limit ?? 200, 1), 1000)],
    );
    const all = rows.map((r) => recordOf(r, now));
    return opts.active ? all.filter((g) => g.status === 'active') : all;
  }

  async get(grantId: string, tenant: string): Promise<GrantRecord | undefined> {
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM policy_grants WHERE grant_id = ? AND tenant = ?`,
      [grantId, tenant],
    );
    return rows[0] ? recordOf(rows[0], new Date().toISOString()) : undefined;
  }

  /** Withdraws a grant; undefined when the tenant has no such grant. Revoking twice keeps the first revocation. */
  async revoke(
    grantId: string,
    tenant: string,
    by: string,
  ): Promise<{ grant: GrantRecord; revoked: boolean } | undefined> {
    const r = await this.db.run(
      `UPDATE policy_grants SET revoked_at = ?, revoked_by = ? WHERE grant_id = ? AND tenant = ? AND revoked_at IS NULL`,
      [new Date().toISOString(), by, grantId, tenant],
    );
    const grant = await this.get(grantId, tenant);
    return grant ? { grant, revoked: r.changes > 0 } : undefined;
  }
}

function recordOf(r: Record<string, unknown>, now: string): GrantRecord {
  const uses = Number(r.uses);
  const maxUses = Number(r.max_uses);
  const expiresAt = String(r.expires_at);
  const revokedAt = r.revoked_at === null || r.revoked_at === undefined ? undefined : String(r.revoked_at);
  const status: GrantStatus = revokedAt
    ? 'revoked'
    : uses >= maxUses
      ? 'exhausted'
      : expiresAt <= now
        ? 'expired'
        : 'active';
  return {
    grant_id: String(r.grant_id),
    tenant: String(r.tenant),
    request_id: String(r.request_id),
    rule_id: String(r.rule_id),
    policy_sha256: String(r.policy_sha256),
    agent_id: String(r.agent_id),
    action: String(r.action),
    target: String(r.target),
    reviewers: JSON.parse(String(r.reviewers)) as string[],
    for_seconds: Number(r.for_seconds),
    max_uses: maxUses,
    ...(r.when_expr !== null && r.when_expr !== undefined ? { when: String(r.when_expr) } : {}),
    issued_at: String(r.issued_at),
    expires_at: expiresAt,
    uses,
    status,
    ...(revokedAt ? { revoked_at: revokedAt, revoked_by: String(r.revoked_by) } : {}),
  };
}
