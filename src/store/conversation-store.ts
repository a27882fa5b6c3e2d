import type { Message } from '../common/conversation';
import { migrateUnderLock, PG_MIGRATION_LOCK, type Db } from './db';

/** One saved conversation: the JSON text exactly as stored, and its digest at save time. */
export interface StoredConversation {
  messages: string;
  sha256: string;
}

/**
 * A run's conversation in the store. `run_messages` is its conversation log: one row per
 * message by seq, which model calls and hand-overs name by count and hash chain
 * (core/conversation-log.ts). `run_conversations` holds the hand-overs of runs recorded
 * before the log: the whole conversation, keyed by run and the execution that loads it,
 * the digest in the next input.
 */
export class ConversationStore {
  constructor(private readonly db: Db) {}

  /**
   * Creates the tables if missing, under the store's migration lock (`migrateUnderLock`):
   * workers starting together would otherwise collide on the catalog despite `IF NOT EXISTS`.
   */
  async migrate(): Promise<void> {
    await migrateUnderLock(this.db, PG_MIGRATION_LOCK.conversations, async (tx) => {
      await tx.run(`CREATE TABLE IF NOT EXISTS run_conversations (
        run_id TEXT NOT NULL, execution INTEGER NOT NULL, messages TEXT NOT NULL, sha256 TEXT NOT NULL,
        saved_at TEXT NOT NULL, PRIMARY KEY (run_id, execution))`);
      await tx.run(`CREATE TABLE IF NOT EXISTS run_messages (
        run_id TEXT NOT NULL, seq INTEGER NOT NULL, message TEXT NOT NULL, PRIMARY KEY (run_id, seq))`);
    });
  }

  /**
   * Writes `messages` at seq `from..` of the run's log, replacing what was there: a run
   * writes a position again only with what its own conversation holds there now (an
   * activity retry, or a message a reviewer's modification rewrote), and the reader
   * checks the hash chain, so a stale row can never pass for the conversation.
   */
  async putMessages(runId: string, from: number, messages: readonly Message[]): Promise<void> {
    if (messages.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (let i = 0; i < messages.length; i++)
        await tx.run(
          `INSERT INTO run_messages (run_id, seq, message) VALUES (?, ?, ?)
           ON CONFLICT (run_id, seq) DO UPDATE SET message = excluded.message`,
          [runId, from + i, JSON.stringify(messages[i])],
        );
    });
  }

  /**
   * Messages seq `from..` (before `to`) of the run's log as stored JSON text, in order,
   * stopping after `maxBytes` of text (always at least one row).
   */
  async messages(runId: string, from: number, to: number, maxBytes = Infinity): Promise<string[]> {
    const out: string[] = [];
    let bytes = 0;
    const page = 200;
    for (let at = from; at < to; at += page) {
      const rows = await this.db.query<{ seq: number; message: string }>(
        `SELECT seq, message FROM run_messages WHERE run_id = ? AND seq >= ? AND seq < ? ORDER BY seq`,
        [runId, at, Math.min(to, at + page)],
      );
      for (const r of rows) {
        // A missing seq ends the read: the caller counts what it got against what it asked for.
        if (Number(r.seq) !== from + out.length) return out;
        const text = String(r.message);
        if (out.length > 0 && bytes + text.length > maxBytes) return out;
        out.push(text);
        bytes += text.length;
      }
      if (rows.length < Math.min(to, at + page) - at) return out;
    }
    return out;
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
