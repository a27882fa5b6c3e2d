import type { ConversationRef } from '../core/continuation';
import type { AssistantMessage, Message } from '../core/conversation';
import type { CallPlan } from '../domain/types';
import type { ModelSpec, ToolSpec } from '../models/spec';
import type { DomainRef, GateActivities } from './contracts';

export interface CallModelInput {
  model: ModelSpec;
  messages: Message[];
  tools: ToolSpec[];
}

export interface PlanToolCallInput extends DomainRef {
  tool: string;
  args: Record<string, unknown>;
}

/** The adapter's plan, or why the call never reached it. */
export type PlannedCall =
  | CallPlan
  | { policy: 'unknown_tool'; known: string[] }
  | { policy: 'invalid_args'; issues: { path: string; message: string }[] };

/** A conversation too large for the next execution's input. */
export interface SaveConversationInput {
  run_id: string;
  /** The execution (1-based) that will load it. */
  execution: number;
  messages: Message[];
}

/**
 * Activities the agentRun workflow schedules. `callModel` throws non-retryable
 * ModelExhausted / ModelError failures; transient provider errors are retried.
 */
export interface RunActivities extends Pick<GateActivities, 'executeTool' | 'recordAuditEvent' | 'resolveReviewers'> {
  callModel(input: CallModelInput): Promise<AssistantMessage>;
  listPermittedTools(input: DomainRef): Promise<ToolSpec[]>;
  planToolCall(input: PlanToolCallInput): Promise<PlannedCall>;
  /** Saves a conversation for the next execution (continue-as-new); a retry saves the same rows again. */
  saveConversation(input: SaveConversationInput): Promise<ConversationRef>;
  /** Loads a saved conversation; throws a non-retryable BrokenConversation when it is missing or differs from `ref`. */
  loadConversation(ref: ConversationRef): Promise<Message[]>;
}
