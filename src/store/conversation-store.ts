import type { Message } from '../core/conversation';
import type { Db } from './db';

/** Arbitrary constant naming this store's migration lock (the trip store uses 7_262_001). */
const PG_MIGRATION_LOCK = 7_262_002;

/** One saved conversation: the JSON text exactly as stored, and its digest at save time. */
export interface StoredConversation {
  messages: string;
  sha256: string;
}

/**
 * Conversations an agent run hands to its next execution when they are too large for a
 * workflow input (continue-as-new). Keyed by run and the execution that loads it; the
 * workflow input keeps the digest, so a changed row is caught on load.
 */
export class ConversationStore {
  constructor(private readonly db: Db) {}

  /**
   * Creates the table if missing. On PostgreSQL under an advisory lock: workers starting
   * together would otherwise collide on the catalog despite `IF NOT EXISTS`.
   */
  async migrate(): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (tx.dialect === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(?)', [PG_MIGRATION_LOCK]);
      await tx.run(`CREATE TABLE IF NOT EXISTS run_conversations (
        run_id TEXT NOT NULL, execution INTEGER NOT NULL, messages TEXT NOT NULL, sha256 TEXT NOT NULL,
        saved_at TEXT NOT NULL, PRIMARY KEY (run_id, execution))`);
    });
  }

  /**
   * Saves (or, for an activity retry, saves again) the conversation that `execution`
   * loads. Replacing is right: only one execution of a run ever saves under a key.
   */
  async save(runId: string, execution: number, messages: readonly Message[], sha256: string): Promise<void> {
    await this.db.run(
      `INSERT INTO run_conversations (run_id, execution, messages, sha256, saved_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (run_id, execution) DO UPDATE SET messages = excluded.messages, sha256 = excluded.sha256, saved_at = excluded.saved_at`,
      [runId, execution, JSON.stringify(messages), sha256, new Date().toISOString()],
    );
  }

  /** The saved conversation, or undefined when there is none. */
  async load(runId: string, execution: number): Promise<StoredConversation | undefined> {
    const rows = await this.db.query<{ messages: string; sha256: string }>(
      `SELECT messages, sha256 FROM run_conversations WHERE run_id = ? AND execution = ?`,
      [runId, execution],
    );
    return rows[0] ? { messages: String(rows[0].messages), sha256: String(rows[0].sha256) } : undefined;
  }
}
