import type { AuditEvent } from '../core/audit';
import type { Db } from './db';

/** Rows per INSERT: 13 parameters each stays far below SQLite's and PostgreSQL's parameter limits. */
const APPEND_CHUNK = 200;

/**
 * The append-only audit store. Events come from workflows (which own the hash chain)
 * through an activity; inserting an event id twice is a no-op, so activity retries are safe.
 */
export class AuditStore {
  constructor(private readonly db: Db) {}

  /** Creates the table and, on SQLite and PostgreSQL alike, triggers that refuse UPDATE and DELETE. */
  async migrate(): Promise<void> {
    await this.db.run(`CREATE TABLE IF NOT EXISTS audit_events (
      event_id TEXT PRIMARY KEY, request_id TEXT NOT NULL, seq INTEGER NOT NULL, event_type TEXT NOT NULL,
      actor_type TEXT NOT NULL, actor_id TEXT NOT NULL, payload_sha256 TEXT, note TEXT, timestamp TEXT NOT NULL,
      data TEXT NOT NULL, prev_hash TEXT, hash TEXT NOT NULL, recorded_at TEXT NOT NULL, UNIQUE (request_id, seq))`);
    if (this.db.dialect === 'sqlite') {
      for (const op of ['UPDATE', 'DELETE']) {
        await this.db.run(`CREATE TRIGGER IF NOT EXISTS audit_events_no_${op.toLowerCase()} BEFORE ${op} ON audit_events
          BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END`);
      }
    } else {
      await this.db.run(`CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger AS $$
        BEGIN RAISE EXCEPTION 'audit_events is append-only'; END $$ LANGUAGE plpgsql`);
      await this.db.run(`DROP TRIGGER IF EXISTS audit_events_no_change ON audit_events`);
      await this.db.run(`CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
        FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
    }
  }

  /** Appends one event; a second append of the same event id changes nothing. */
  async append(e: AuditEvent): Promise<void> {
    await this.appendMany([e]);
  }

  /** Appends events in one statement (one round trip); ids already stored are skipped. */
  async appendMany(events: AuditEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += APPEND_CHUNK) await this.insert(events.slice(i, i + APPEND_CHUNK));
  }

  private async insert(events: AuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    const recordedAt = new Date().toISOString();
    const rows = events.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
    await this.db.run(
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

  /** A request's (or run's) trail in chain order. */
  async list(requestId: string): Promise<AuditEvent[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM audit_events WHERE request_id = ? ORDER BY seq`,
      [requestId],
    );
    return rows.map((r) => ({
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
    }));
  }
}
