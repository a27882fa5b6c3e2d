import type { Message } from './conversation';
import type { ConversationLogRef } from './conversation-log';
import { utf8Length } from './hashing';

/**
 * When one execution of an agent run hands over to a fresh one (continue-as-new), and
 * how it carries its conversation. Pure: the workflow feeds in what `workflowInfo()`
 * reports, so the decision unit-tests without a server.
 */
export interface ContinuationLimits {
  /** Model turns one execution runs before it continues as new. */
  turns_per_execution: number;
  /** History size in bytes after which an execution continues as new at the next turn boundary. */
  history_bytes: number;
  /** History length in events after which an execution continues as new at the next turn boundary. */
  history_events: number;
  /**
   * Runs recorded before the conversation log (which always hands over by ref): a
   * conversation whose JSON is larger than this (bytes) goes to the store and the next
   * input names it, instead of riding in the input: Temporal refuses payloads over 2 MB
   * and warns from 512 KB, and the next input also carries the model spec and audit head.
   */
  inline_conversation_bytes: number;
}

/**
 * Defaults well below Temporal's limits (50 MB / 50K events per history, warnings from
 * 10 MB / 10K): a short history replays fast, and in runs recorded before the conversation
 * log every model call recorded the whole conversation, so a history grew with the square
 * of the turns.
 */
export const DEFAULT_CONTINUATION_LIMITS: ContinuationLimits = {
  turns_per_execution: 50,
  history_bytes: 8 * 1024 * 1024,
  history_events: 8_000,
  inline_conversation_bytes: 256 * 1024,
};

/** The defaults, with every field of `partial` that is a positive integer taken instead. */
export function resolveLimits(partial: Partial<ContinuationLimits> | undefined): ContinuationLimits {
  const out = { ...DEFAULT_CONTINUATION_LIMITS };
  for (const key of Object.keys(out) as (keyof ContinuationLimits)[]) {
    const v = partial?.[key];
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) out[key] = v;
  }
  return out;
}

/** Where an execution stands at a turn boundary, as `workflowInfo()` and the run report it. */
export interface ExecutionProgress {
  /** Model turns this execution ran (not counting earlier executions). */
  turns: number;
  historyBytes: number;
  historyEvents: number;
  /** The server's `continueAsNewSuggested`. */
  suggested: boolean;
  /**
   * Gates and interactions still open. Child gates close with their parent
   * (REQUEST_CANCEL), so continuing while one is open would cancel it.
   */
  pending: number;
}

/** Why an execution continues as new. */
export type ContinueReason = 'suggested' | 'turns' | 'history_bytes' | 'history_events';

/**
 * The reason to continue as new now, or null to run the next turn here. Never before an
 * execution's first turn (that would loop) and never while anything is pending.
 */
export function continueReason(p: ExecutionProgress, limits: ContinuationLimits): ContinueReason | null {
  if (p.turns <= 0 || p.pending > 0) return null;
  if (p.suggested) return 'suggested';
  if (p.historyBytes >= limits.history_bytes) return 'history_bytes';
  if (p.historyEvents >= limits.history_events) return 'history_events';
  if (p.turns >= limits.turns_per_execution) return 'turns';
  return null;
}

/** Names a conversation saved to the store; the digest lets the loader prove it got the same one. */
export interface ConversationRef {
  run_id: string;
  /** The execution (1-based) that loads it. */
  execution: number;
  /** Message count, for the audit trail and a quick sanity check. */
  count: number;
  /** `digest` of the message array. */
  sha256: string;
}

/**
 * How the next execution gets the conversation: in its input, or from the store by
 * reference (`stored`: one row per hand-over; `log`: the run's conversation log, since
 * the log patch).
 */
export type CarriedConversation = { messages: Message[] } | { stored: ConversationRef } | { log: ConversationLogRef };

/** True when the conversation is too large (as JSON, in UTF-8 bytes) to carry in the next input. */
export function mustOffload(messages: readonly Message[], limits: ContinuationLimits): boolean {
  return utf8Length(JSON.stringify(messages)) > limits.inline_conversation_bytes;
}
