import { z } from 'zod';
import { sharedSchema } from './shared-schema';

/**
 * What happened to one tool call. The loop writes exactly one result per call, whatever
 * happened. `blocked` and `invalidated` are policy (nothing ran); `failure` is execution
 * (the tool ran and raised). Keep the two apart.
 */
export const ToolOutcome = {
  /** The tool ran and returned. */
  Success: 'success',
  /** The tool ran and raised: an execution failure. */
  Failure: 'failure',
  /** Policy refused the call (or it is not permitted now); nothing ran. */
  Blocked: 'blocked',
  /** A reviewer rejected the call; nothing ran. */
  Denied: 'denied',
  /** No decision before the deadline; fails closed, nothing ran. */
  Expired: 'expired',
  /** The approved snapshot no longer matched right before execution; nothing ran. */
  Invalidated: 'invalidated',
  /** The request was withdrawn before a decision; nothing ran. */
  Cancelled: 'cancelled',
  /** The model named a tool that does not exist. */
  UnknownTool: 'unknown_tool',
  /** The args failed the tool's schema. */
  InvalidArgs: 'invalid_args',
} as const;
export type ToolOutcome = (typeof ToolOutcome)[keyof typeof ToolOutcome];

/** zod schema of a tool outcome on the wire. */
export const ToolOutcomeSchema = sharedSchema('conversation.ToolOutcomeSchema', () => z.enum(ToolOutcome));

/** One tool call proposed by the model. */
export const ToolCall = sharedSchema('conversation.ToolCall', () =>
  z.object({
    /** Unique within a run; the tool result names it. */
    id: z.string().min(1).max(200),
    /** The tool's registered name (untrusted: looked up, never executed blindly). */
    name: z.string().min(1).max(200),
    /** The proposed input; after a reviewer's modification, the executed input. */
    args: z.record(z.string(), z.unknown()),
  }),
);
export type ToolCall = z.infer<typeof ToolCall>;

/** Instructions for the model. */
export const SystemMessage = sharedSchema('conversation.SystemMessage', () =>
  z.object({
    role: z.literal('system'),
    /** The prompt text. */
    content: z.string(),
  }),
);
export type SystemMessage = z.infer<typeof SystemMessage>;

/** What the person asked. */
export const UserMessage = sharedSchema('conversation.UserMessage', () =>
  z.object({
    role: z.literal('user'),
    /** The user's text. */
    content: z.string(),
  }),
);
export type UserMessage = z.infer<typeof UserMessage>;

/** One model turn: text, tool calls, or both. */
export const AssistantMessage = sharedSchema('conversation.AssistantMessage', () =>
  z.object({
    role: z.literal('assistant'),
    /** The model's text; empty when it only calls tools. */
    content: z.string(),
    /** Tool calls, each answered by exactly one tool message. */
    tool_calls: z.array(ToolCall).optional(),
  }),
);
export type AssistantMessage = z.infer<typeof AssistantMessage>;

/** The one result of one tool call, written by the loop (never by a tool). */
export const ToolMessage = sharedSchema('conversation.ToolMessage', () =>
  z.object({
    role: z.literal('tool'),
    /** Text the model reads. */
    content: z.string(),
    /** The call this answers. */
    tool_call_id: z.string().min(1).max(200),
    /** What happened. */
    outcome: ToolOutcomeSchema,
    /** Structured facts (ids, executed values) for tests, templates and the UI. */
    values: z.record(z.string(), z.unknown()).optional(),
  }),
);
export type ToolMessage = z.infer<typeof ToolMessage>;

/** A conversation message on the wire (snake_case, docs/agent-runs.md). */
export const Message = sharedSchema('conversation.Message', () =>
  z.discriminatedUnion('role', [SystemMessage, UserMessage, AssistantMessage, ToolMessage]),
);
export type Message = z.infer<typeof Message>;

/** A whole conversation, oldest first. */
export const Conversation = sharedSchema('conversation.Conversation', () => z.array(Message));
export type Conversation = z.infer<typeof Conversation>;

/** The assistant message whose results are being read, and the last call answered. */
interface OpenBatch {
  index: number;
  ids: string[];
  lastPos: number;
  lastId: string;
}

/**
 * Checks the tool-call pairing of a conversation before it goes to a model. Returns a
 * list of problems, empty when the history is sound: every call id is unique and has
 * exactly one result; results follow their assistant message directly (before any
 * other non-tool message), in call order; no result without a call.
 */
export function validateConversation(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  const callAt = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    for (const call of m.tool_calls ?? []) {
      const first = callAt.get(call.id);
      if (first === undefined) callAt.set(call.id, i);
      else problems.push(`duplicate tool call id "${call.id}" in message ${i} (first used in message ${first})`);
    }
  });

  const resultAt = new Map<string, number>();
  let batch: OpenBatch | null = null;
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'tool') {
      // Any other message closes the batch: results must follow their call directly.
      batch =
        m.role === 'assistant' && m.tool_calls?.length
          ? { index: i, ids: m.tool_calls.map((c) => c.id), lastPos: -1, lastId: '' }
          : null;
      continue;
    }
    const id = m.tool_call_id;
    const at = callAt.get(id);
    const prior = resultAt.get(id);
    if (at === undefined) problems.push(`message ${i}: tool result for "${id}", which no assistant message called`);
    else if (at > i) problems.push(`message ${i}: tool result for "${id}" comes before its call (message ${at})`);
    else if (prior !== undefined)
      problems.push(`message ${i}: second tool result for "${id}" (first in message ${prior})`);
    else {
      resultAt.set(id, i);
      const pos = batch?.index === at ? batch.ids.indexOf(id) : -1;
      if (!batch || pos < 0)
        problems.push(`message ${i}: tool result for "${id}" is not directly after its call's message ${at}`);
      else if (pos < batch.lastPos)
        problems.push(`message ${i}: tool result for "${id}" comes after "${batch.lastId}", but was called before it`);
      else batch = { ...batch, lastPos: pos, lastId: id };
    }
  }

  for (const [id, at] of callAt) {
    if (!resultAt.has(id)) problems.push(`tool call "${id}" (message ${at}) has no result`);
  }
  return problems;
}

/**
 * Returns a copy of the conversation in which call `callId` carries `args`: after a
 * reviewer's modification the recorded assistant message shows the executed args.
 * Throws when no assistant message has that call, which is a bug in the caller.
 */
export function rewriteToolCallArgs(
  messages: readonly Message[],
  callId: string,
  args: Record<string, unknown>,
): Message[] {
  let found = false;
  const out = messages.map((m): Message => {
    if (m.role !== 'assistant' || !m.tool_calls?.some((c) => c.id === callId)) return m;
    found = true;
    return { ...m, tool_calls: m.tool_calls.map((c) => (c.id === callId ? { ...c, args: structuredCopy(args) } : c)) };
  });
  if (!found) throw new Error(`no assistant message has tool call "${callId}"`);
  return out;
}

/** A JSON deep copy, so the returned history shares no mutable args with the caller. */
function structuredCopy(value: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

/** Tool call ids the loop accepts: they name gates and idempotency keys, so printable and short. */
const CALL_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * Problems with a model's reply before any of its calls runs: ids that are malformed,
 * repeated within the reply, or already used earlier in the conversation. Empty when
 * the batch may run.
 */
export function checkReply(history: readonly Message[], reply: AssistantMessage): string[] {
  const used = new Set<string>();
  for (const m of history) if (m.role === 'assistant') for (const c of m.tool_calls ?? []) used.add(c.id);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const c of reply.tool_calls ?? []) {
    if (!CALL_ID.test(c.id))
      problems.push(`tool call id ${JSON.stringify(c.id.slice(0, 140))} is not 1-128 of [A-Za-z0-9_.:-]`);
    else if (seen.has(c.id)) problems.push(`tool call id ${c.id} appears twice in one reply`);
    else if (used.has(c.id)) problems.push(`tool call id ${c.id} was already used earlier in this run`);
    seen.add(c.id);
  }
  return problems;
}
