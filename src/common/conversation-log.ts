import type { Message } from './conversation';
import { digest, sha256Hex, utf8Length } from './hashing';

/**
 * A run's conversation as a log in the store: message `seq` 0..n-1 of the run, and a hash
 * chain over them, so that a model call, a continuation and a reader name the whole
 * conversation in a few bytes instead of carrying it (Temporal refuses payloads over 2 MB).
 * Pure: the workflow keeps the chain, the activities and the API check it.
 */

/** Names the first `count` messages of a run's stored log; `head` is the chain over them. */
export interface ConversationLogRef {
  run_id: string;
  count: number;
  head: string;
}

/**
 * Byte budgets, each under the 512 KB from which the SDK warns about a payload (Temporal
 * refuses them past 2 MB): new messages a model call carries inline (more are written
 * first, in batches), one batch written or one page read, and the messages a view (query
 * answer, update answer, result) shows inline.
 */
export const LOG_LIMITS = {
  inline_bytes: 256 * 1024,
  batch_bytes: 384 * 1024,
  view_bytes: 256 * 1024,
} as const;

/** The chain value before any message. */
export const EMPTY_CHAIN = sha256Hex('approval-gate conversation log v1');

/** The chain after one more message: SHA-256 of the previous value and the message's digest. */
export function chainStep(previous: string, message: Message): string {
  return sha256Hex(`${previous}:${digest(message)}`);
}

/** The chain over `messages`, starting from `from` (EMPTY_CHAIN for a whole log). */
export function chainOver(messages: readonly Message[], from: string = EMPTY_CHAIN): string {
  let head = from;
  for (const m of messages) head = chainStep(head, m);
  return head;
}

/** UTF-8 bytes of a message as JSON: what it adds to a payload. */
export function messageBytes(m: Message): number {
  return utf8Length(JSON.stringify(m));
}

/** UTF-8 bytes of messages as JSON, separators aside. */
export function messagesBytes(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) n += messageBytes(m);
  return n;
}

/**
 * Splits messages into runs of at most `budget` bytes each (a message larger than the
 * budget travels alone), so that no one activity input or result nears the payload limit.
 */
export function batchesOf(messages: readonly Message[], budget: number): Message[][] {
  const out: Message[][] = [];
  let batch: Message[] = [];
  let bytes = 0;
  for (const m of messages) {
    const b = messageBytes(m);
    if (batch.length > 0 && bytes + b > budget) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(m);
    bytes += b;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

/**
 * What the workflow knows of its stored log: the messages the store holds (the very
 * objects, so an edited message is seen by identity) and the chain after each of them.
 */
export class ConversationLog {
  private stored: Message[] = [];
  private heads: string[] = [];

  constructor(readonly runId: string) {}

  /** Messages the store holds as this log's prefix. */
  get storedCount(): number {
    return this.stored.length;
  }

  /** The ref to the first `count` stored messages (all of them when absent). */
  ref(count: number = this.stored.length): ConversationLogRef {
    if (count < 0 || count > this.stored.length) throw new RangeError(`only ${this.stored.length} messages are stored`);
    return { run_id: this.runId, count, head: count === 0 ? EMPTY_CHAIN : this.heads[count - 1]! };
  }

  /**
   * How many leading messages of `messages` the store already holds: the longest prefix
   * that is, object for object, what was stored (a rewritten message and everything after
   * it must be written again).
   */
  commonPrefix(messages: readonly Message[]): number {
    const n = Math.min(messages.length, this.stored.length);
    let i = 0;
    while (i < n && messages[i] === this.stored[i]) i++;
    return i;
  }

  /**
   * Records that the store now holds `messages[from..to]` at seq `from..to`; what was
   * recorded past `from` before no longer counts (it was written over, or is stale).
   */
  markStored(messages: readonly Message[], from: number, to: number = messages.length): void {
    if (from > this.stored.length) throw new RangeError(`a gap: ${this.stored.length} stored, writing from ${from}`);
    this.stored = this.stored.slice(0, from);
    this.heads = this.heads.slice(0, from);
    let head = from === 0 ? EMPTY_CHAIN : this.heads[from - 1]!;
    for (const m of messages.slice(from, to)) {
      head = chainStep(head, m);
      this.stored.push(m);
      this.heads.push(head);
    }
  }
}

/** The model call's conversation: the stored prefix by ref, the rest inline (written to the log by the activity). */
export interface ConversationByRef {
  prefix: ConversationLogRef;
  /** Messages `prefix.count..`, in order. */
  tail: Message[];
}

/** Why a stored log cannot be used as it was named; the activities turn it into BrokenConversation. */
export function logProblem(ref: ConversationLogRef, loaded: readonly Message[]): string | null {
  if (loaded.length !== ref.count)
    return `the stored conversation of run ${ref.run_id} has ${loaded.length} of the ${ref.count} messages the run named`;
  if (chainOver(loaded) !== ref.head)
    return `the stored conversation of run ${ref.run_id} differs from the one the run holds (hash chain mismatch)`;
  return null;
}

/**
 * The messages a view shows inline when the whole conversation would be too large for a
 * query answer or a workflow result: the newest ones within `budget` bytes, never fewer
 * than the messages the store does not hold yet. `omitted` leading messages are read from
 * the store by whoever shows the view.
 */
export function viewWindow(
  messages: readonly Message[],
  storedCount: number,
  budget: number,
): { omitted: number; shown: Message[] } {
  let bytes = 0;
  let start = messages.length;
  while (start > 0) {
    const b = messageBytes(messages[start - 1]!);
    if (start <= storedCount && bytes + b > budget) break;
    bytes += b;
    start--;
  }
  return { omitted: start, shown: messages.slice(start) };
}
