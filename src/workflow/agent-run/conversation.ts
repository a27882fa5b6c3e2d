import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { AssistantMessage, Message } from '../../common/conversation';
import {
  batchesOf,
  LOG_LIMITS,
  logProblem,
  messagesBytes,
  viewWindow,
  type ConversationLog,
  type ConversationLogRef,
} from '../../common/conversation-log';
import type { CallModelInput, RunActivities } from '../../worker/activities/run-contracts';
import type { RunView } from './messages';

/** The run's store activities: round trips ride out an outage of several minutes, like the adapter's reads. */
export const store = proxyActivities<RunActivities>({
  startToCloseTimeout: '1m',
  retry: {
    initialInterval: '1s',
    maximumInterval: '1m',
    maximumAttempts: 20,
    nonRetryableErrorTypes: ['BrokenConversation'],
  },
});

/** Writes what the store does not hold yet of `messages` to the log, in batches, and records it. */
export async function storeUnstored(log: ConversationLog, messages: readonly Message[]): Promise<void> {
  let at = log.commonPrefix(messages);
  for (const batch of batchesOf(messages.slice(at), LOG_LIMITS.batch_bytes)) {
    await store.storeMessages({ run_id: log.runId, from: at, messages: batch });
    log.markStored(messages, at, at + batch.length);
    at += batch.length;
  }
}

/**
 * Calls the model on the conversation by ref: the stored prefix named by its chain, the
 * new messages inline (the activity writes them to the log), or written first when they
 * are too many bytes to ride in the input.
 */
export async function callModelByRef(
  log: ConversationLog,
  messages: readonly Message[],
  call: (input: CallModelInput) => Promise<AssistantMessage>,
  rest: Omit<CallModelInput, 'messages' | 'conversation'>,
): Promise<AssistantMessage> {
  const sent = messages.slice(); // a signal may edit the conversation while the call runs
  if (messagesBytes(sent.slice(log.commonPrefix(sent))) > LOG_LIMITS.inline_bytes) await storeUnstored(log, sent);
  const from = log.commonPrefix(sent);
  const reply = await call({ ...rest, conversation: { prefix: log.ref(from), tail: sent.slice(from) } });
  log.markStored(sent, from);
  return reply;
}

/** The carried log read back page by page and checked against its chain; the log records it as stored. */
export async function restoreLog(log: ConversationLog, ref: ConversationLogRef): Promise<Message[]> {
  const out: Message[] = [];
  while (out.length < ref.count) {
    const page = await store.loadMessages({ log: ref, from: out.length, max_bytes: LOG_LIMITS.batch_bytes });
    if (page.length === 0) break;
    out.push(...page);
  }
  const problem = logProblem(ref, out);
  if (problem) throw ApplicationFailure.create({ type: 'BrokenConversation', message: problem, nonRetryable: true });
  log.markStored(out, 0);
  return out;
}

/**
 * The view as a query, an update or the result returns it: the whole conversation when it
 * fits in `LOG_LIMITS.view_bytes`, else its newest messages and a ref to the stored rest
 * (`messages_omitted`, `conversation`), which RunClient reads from the store.
 */
export function viewOf(view: RunView, log: ConversationLog): RunView {
  const { omitted, shown } = viewWindow(view.messages, log.commonPrefix(view.messages), LOG_LIMITS.view_bytes);
  return omitted === 0 ? view : { ...view, messages: shown, messages_omitted: omitted, conversation: log.ref(omitted) };
}
