import { ApplicationFailure } from '@temporalio/common';
import { Conversation, type Message } from '../../common/conversation';
import { FailureType } from '../../common/failure-types';
import { logProblem, type ConversationByRef } from '../../common/conversation-log';
import { digest } from '../../common/hashing';
import { ConversationStore } from '../../store/conversation-store';
import type { Db } from '../../store/db';
import type { RunActivities } from './run-contracts';

type ConversationActivities = Pick<
  RunActivities,
  'saveConversation' | 'loadConversation' | 'storeMessages' | 'loadMessages'
>;

/** Migrates `run_conversations` and `run_messages` on `db`; returns the store. */
export async function openConversationStore(db: Db): Promise<ConversationStore> {
  const store = new ConversationStore(db);
  await store.migrate();
  return store;
}

/** Parses stored message rows; a row that is not a message fails the run like a broken chain. */
function parseRows(runId: string, rows: string[]): Message[] {
  const raw: unknown = rows.map((r) => JSON.parse(r) as unknown);
  const parsed = Conversation.safeParse(raw);
  if (!parsed.success) throw broken(`the stored conversation of run ${runId} holds a row that is not a message`);
  return raw as Message[];
}

/**
 * The whole conversation a model call names: the stored prefix read back and checked
 * against the run's hash chain, then the tail, which is written to the log first (so the
 * next call names it by ref).
 */
export async function resolveConversation(store: ConversationStore, c: ConversationByRef): Promise<Message[]> {
  const { prefix, tail } = c;
  await store.putMessages(prefix.run_id, prefix.count, tail);
  const stored = parseRows(prefix.run_id, await store.messages(prefix.run_id, 0, prefix.count));
  const problem = logProblem(prefix, stored);
  if (problem) throw broken(problem);
  return [...stored, ...tail];
}

/**
 * The run's offload of a large conversation across continue-as-new. Load re-checks the
 * digest the previous execution put in the next input: a missing or altered row fails
 * the run (BrokenConversation, not retried) rather than feeding a model another history.
 */
export function createConversationActivities(store: ConversationStore): ConversationActivities {
  return {
    async storeMessages({ run_id, from, messages }) {
      await store.putMessages(run_id, from, messages);
    },
    async loadMessages({ log, from, max_bytes }) {
      return parseRows(log.run_id, await store.messages(log.run_id, from, log.count, max_bytes));
    },
    async saveConversation({ run_id, execution, messages }) {
      const sha256 = digest(messages);
      await store.save(run_id, execution, messages, sha256);
      return { run_id, execution, count: messages.length, sha256 };
    },
    async loadConversation(ref) {
      const row = await store.load(ref.run_id, ref.execution);
      if (!row) throw broken(`no saved conversation for run ${ref.run_id}, execution ${ref.execution}`);
      const raw: unknown = JSON.parse(row.messages);
      // The digest is over the messages as saved (zod would strip fields a provider added), the schema check after it.
      if (digest(raw) !== ref.sha256 || !Array.isArray(raw) || raw.length !== ref.count) {
        throw broken(
          `the saved conversation of run ${ref.run_id}, execution ${ref.execution} differs from the one the run handed over`,
        );
      }
      if (!Conversation.safeParse(raw).success)
        throw broken(`the saved conversation of run ${ref.run_id}, execution ${ref.execution} is not a conversation`);
      return raw as Message[];
    },
  };
}

function broken(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.BrokenConversation, message, nonRetryable: true });
}
