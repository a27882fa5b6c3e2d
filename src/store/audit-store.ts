import { randomUUID } from 'node:crypto';
import type { AuditEvent } from '../common/audit';
import { migrateUnderLock, PG_MIGRATION_LOCK, type Db } from './db';

/** Rows per INSERT: 13 parameters each stays far below SQLite's and PostgreSQL's parameter limits. */
const APPEND_CHUNK = 200;

/**
 * A caller's promise to write the events of one create or update (GateClient with an
 * audit store), recorded before it sends: `event` is the creator's `approval.requested`
 * (known before the start), `update_id` names the update whose result carries the
 * events. Kept until the caller has written them; a stale one is recovered from the
 * gate's history (GateClient.recoverAuditIntents).
 */
export interface AuditIntent {
  intent_id: string;
  request_id: string;
  update_id: string | null;
  event: AuditEvent | null;
  created_at: string;
}

/**
 * The append-only audit store. Events come from workflows (which own the hash chain)
 * through an activity; inserting an event id twice is a no-op, so activity retries are safe.
 */
export class AuditStore {
  constructor(private readonly db: Db) {}

  /**
   * Creates the tables and, on SQLite and PostgreSQL alike, triggers that refuse UPDATE and
   * DELETE, under the store's migration lock (`migrateUnderLock`): the API and the workers
   * migrate as they start, and on PostgreSQL the trigger is replaced in one transaction, so
   * it is never missing while another process writes.
   */
  async migrate(): Promise<void> {
    await migrateUnderLock(this.db, PG_MIGRATION_LOCK.audit, async (tx) => {
      await tx.run(`CREATE TABLE IF NOT EXISTS audit_events (
        event_id TEXT PRIMARY KEY, request_id TEXT NOT NULL, seq INTEGER NOT NULL, event_type TEXT NOT NULL,
        actor_type TEXT NOT NULL, actor_id TEXT NOT NULL, payload_sha256 TEXT, note TEXT, timestamp TEXT NOT NULL,
        data TEXT NOT NULL, prev_hash TEXT, hash TEXT NOT NULL, recorded_at TEXT NOT NULL, UNIQUE (request_id, seq))`);
      if (tx.dialect === 'sqlite') {
        for (const op of ['UPDATE', 'DELETE']) {
          await tx.run(`CREATE TRIGGER IF NOT EXISTS audit_events_no_${op.toLowerCase()} BEFORE ${op} ON audit_events
            BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END`);
        }
      } else {
        await tx.run(`CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger AS $$
          BEGIN RAISE EXCEPTION 'audit_events is append-only'; END $$ LANGUAGE plpgsql`);
        await tx.run(`DROP TRIGGER IF EXISTS audit_events_no_change ON audit_events`);
        await tx.run(`CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
          FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
      }
      await tx.run(`CREATE TABLE IF NOT EXISTS audit_intents (
        intent_id TEXT PRIMARY KEY, request_id TEXT NOT NULL, update_id TEXT, event TEXT, created_at TEXT NOT NULL)`);
      await tx.run(`CREATE INDEX IF NOT EXISTS audit_intents_created ON audit_intents (created_at)`);
    });
  }

  /** Records an audit intent (see AuditIntent) and returns its id. */
  async recordIntent(i: { request_id: string; update_id?: string; event?: AuditEvent }): Promise<string> {
    const id = `int_${randomUUID()}`;
    await this.db.run(
      `INSERT INTO audit_intents (intent_id, request_id, update_id, event, created_at) VALUES (?, ?, ?, ?, ?)`,
      [id, i.request_id, i.update_id ?? null, i.event ? JSON.stringify(i.event) : null, new Date().toISOString()],
    );
    return id;
  }

  /** Writes what an intent promised and removes the intent, in one transaction. */
  async settleIntent(intentId: string, events: AuditEvent[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      for (let i = 0; i < events.length; i += APPEND_CHUNK) await insertEvents(tx, events.slice(i, i + APPEND_CHUNK));
      await tx.run(`DELETE FROM audit_intents WHERE intent_id = ?`, [intentId]);
    });
  }

  /** Removes an intent whose create or update turned out to append nothing (refused, or a replayed key). */
  async dropIntent(intentId: string): Promise<void> {
    await this.db.run(`DELETE FROM audit_intents WHERE intent_id = ?`, [intentId]);
  }

  /** Intents recorded no later than `before` (ISO time), oldest first. */
  async staleIntents(before: string, limit = 100): Promise<AuditIntent[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM audit_intents WHERE created_at <= ? ORDER BY created_at LIMIT ?`,
      [before, limit],
    );
    return rows.map((r) => ({
      intent_id: String(r.intent_id),
      request_id: String(r.request_id),
      update_id: r.update_id === null || r.update_id === undefined ? null : String(r.update_id),
      event: r.event === null || r.event === undefined ? null : (JSON.parse(String(r.event)) as AuditEvent),
      created_at: String(r.created_at),
    }));
  }

  /** Appends one event; a second append of the same event id changes nothing. */
  async append(e: AuditEvent): Promise<void> {
    await this.appendMany([e]);
  }

  /** Appends events in one statement (one round trip); ids already stored are skipped. */
  async appendMany(events: AuditEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += APPEND_CHUNK) await this.insert(events.slice(i, i + APPEND_CHUNK));
  }

  private insert(events: AuditEvent[]): Promise<void> {
    return insertEvents(this.db, events);
  }

  /** A request's (or run's) trail in chain order. */
  async list(requestId: string): Promise<AuditEvent[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM audit_events WHERE request_id = ? ORDER BY seq`,
      [requestId],
    );
    return rows.map(eventOf);
  }

  /**
   * Events of one type recorded at or after `since` (ISO time), oldest first: what `gate
   * policy replay` reads. A scan (no index, so that every audit write stays as cheap as before).
   */
  async listByType(eventType: string, since: string, limit = 100_000): Promise<AuditEvent[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM audit_events WHERE event_type = ? AND timestamp >= ? ORDER BY timestamp, event_id LIMIT ?`,
      [eventType, since, limit],
    );
    return rows.map(eventOf);
  }
}

/** A stored row as an event. */
function eventOf(r: Record<string, unknown>): AuditEvent {
  return {
    event_id: String(r.event_id),
    seq: Number(r.seq),
    request_id: String(r.request_id),
    event_type: String(r.event_type),
    actor_type: r.actor_type as AuditEvent['actor_type'],
    actor_id: String(r.actor_id),
    payload_sha256: (r.payload_sha256 as string | null) ?? null,
    note: (r.note as string | null) ?? null,
    timestamp: String(r.timestamp),
    data: JSON.parse(String(r.data)) as Record<string, unknown>,
    prev_hash: (r.prev_hash as string | null) ?? null,
    hash: String(r.hash),
  };
}

/** One INSERT of up to APPEND_CHUNK events; ids already stored are skipped. */
async function insertEvents(db: Db, events: AuditEvent[]): Promise<void> {
  if (events.length === 0) return;
  const recordedAt = new Date().toISOString();
  const rows = events.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
  await db.run(
    `INSERT INTO audit_events (event_id, request_id, seq, event_type, actor_type, actor_id, payload_sha256, note, timestamp, data, prev_hash, hash, recorded_at)
       VALUES ${rows} ON CONFLICT (event_id) DO NOTHING`,
    events.flatMap((e) => [
      e.event_id,
      e.request_id,
      e.seq,
      e.event_type,
      e.actor_type,
      e.actor_id,
      e.payload_sha256,
      e.note,
      e.timestamp,
      JSON.stringify(e.data),
      e.prev_hash,
      e.hash,
      recordedAt,
    ]),
  );
}
