import { ApplicationFailure } from '@temporalio/common';
import { Conversation, type Message } from '../core/conversation';
import { FailureType } from '../core/failure-types';
import { digest } from '../core/hashing';
import { ConversationStore } from '../store/conversation-store';
import type { Db } from '../store/db';
import type { RunActivities } from './run-contracts';

type ConversationActivities = Pick<RunActivities, 'saveConversation' | 'loadConversation'>;

/** Migrates `run_conversations` on `db` and returns the save/load activities over it. */
export async function conversationActivities(db: Db): Promise<ConversationActivities> {
  const store = new ConversationStore(db);
  await store.migrate();
  return createConversationActivities(store);
}

/**
 * The run's offload of a large conversation across continue-as-new. Load re-checks the
 * digest the previous execution put in the next input: a missing or altered row fails
 * the run (BrokenConversation, not retried) rather than feeding a model another history.
 */
export function createConversationActivities(store: ConversationStore): ConversationActivities {
  return {
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
