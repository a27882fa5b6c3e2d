import { migrateUnderLock, type Db } from 'approval-gate/worker';

/** This domain's PostgreSQL advisory lock for its migration (any number other stores do not use). */
const TRIP_MIGRATION_LOCK = 7_262_001;

/**
 * Tables of the trip Domain Session. SQL in the common subset of SQLite and
 * PostgreSQL: TEXT ids and ISO timestamps, INTEGER/BIGINT amounts, JSON as TEXT,
 * booleans as 0/1 integers (pg cannot bind `true` to an INTEGER column).
 */
const STATEMENTS = [
  `CREATE TABLE IF NOT EXISTS trip_drafts (
    draft_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    destination TEXT NOT NULL,
    days INTEGER NOT NULL,
    budget BIGINT NOT NULL,
    content_sha256 TEXT NOT NULL,
    source TEXT NOT NULL,
    parent_draft_id TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (session_id, version)
  )`,
  `CREATE TABLE IF NOT EXISTS trip_validations (
    validation_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    draft_id TEXT NOT NULL REFERENCES trip_drafts (draft_id),
    attempt INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    record TEXT NOT NULL,
    validation_sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (draft_id, attempt)
  )`,
  // UNIQUE (draft_id): a draft is submitted at most once, whatever the key.
  `CREATE TABLE IF NOT EXISTS trip_submissions (
    submission_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    draft_id TEXT NOT NULL UNIQUE REFERENCES trip_drafts (draft_id),
    destination TEXT NOT NULL,
    days INTEGER NOT NULL,
    budget BIGINT NOT NULL,
    request_id TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  )`,
  // One row per executed write: the key is claimed and the output stored in the effect's transaction.
  `CREATE TABLE IF NOT EXISTS trip_idempotency (
    idempotency_key TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    input_sha256 TEXT NOT NULL,
    output TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS trip_submissions_created ON trip_submissions (created_at)`,
];

/**
 * Creates the trip tables if missing. Idempotent. The DDL runs under the store's migration
 * lock (`migrateUnderLock`) because concurrent `CREATE TABLE IF NOT EXISTS` (worker and
 * API starting together) can still collide on PostgreSQL's catalog.
 */
export async function migrateTripStore(db: Db): Promise<void> {
  await migrateUnderLock(db, TRIP_MIGRATION_LOCK, async (tx) => {
    for (const sql of STATEMENTS) await tx.run(sql);
  });
}
