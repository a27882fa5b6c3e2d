import type { ConversationRef } from '../../common/continuation';
import type { ConversationByRef, ConversationLogRef } from '../../common/conversation-log';
import type { AssistantMessage, Message } from '../../common/conversation';
import type { CallPlan } from '../../domain/types';
import type { ModelSpec, ToolSpec } from '../../common/model-spec';
import type { DomainRef, EvaluatePolicyResult, GateActivities } from './contracts';

/** The conversation inline (`messages`, runs recorded before the conversation log) or by ref (`conversation`). */
export interface CallModelInput {
  model: ModelSpec;
  messages?: Message[];
  /** The stored prefix by ref and the new messages, which the activity writes to the log before it calls the model. */
  conversation?: ConversationByRef;
  tools: ToolSpec[];
}

/** Messages to write to a run's conversation log at seq `from..`. */
export interface StoreMessagesInput {
  run_id: string;
  from: number;
  messages: Message[];
}

/** One page of a stored log: messages `from..` of `log`, at most `max_bytes` of them (at least one). */
export interface LoadMessagesInput {
  log: ConversationLogRef;
  from: number;
  max_bytes: number;
}

export interface PlanToolCallInput extends DomainRef {
  tool: string;
  args: Record<string, unknown>;
  /** The call's id in its run (its gate is `<run id>-<call id>`), the run's agent and tenant: what a version 2 rule file reads. */
  call_id?: string;
  agent_id?: string;
  tenant?: string;
}

/**
 * The adapter's plan, or why the call never reached it. With a version 2 rule file the
 * plan is the adapter's tier combined with the file's (the stricter wins), and `judged`
 * carries the file's answer: the rule, the reviewers, the evidence, the shadow rules and
 * a pre-decision by a standing grant.
 */
export type PlannedCall =
  | (CallPlan & {
      judged?: EvaluatePolicyResult;
      /** On a call that needs a person: the worker's GATE_NOTIFY, told when the rule names no targets. */
      default_notify?: string[];
    })
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
export interface RunActivities extends Pick<GateActivities, 'executeTool' | 'resolveReviewers'> {
  callModel(input: CallModelInput): Promise<AssistantMessage>;
  listPermittedTools(input: DomainRef): Promise<ToolSpec[]>;
  planToolCall(input: PlanToolCallInput): Promise<PlannedCall>;
  /** Saves a conversation for the next execution (continue-as-new); a retry saves the same rows again. */
  saveConversation(input: SaveConversationInput): Promise<ConversationRef>;
  /** Loads a saved conversation; throws a non-retryable BrokenConversation when it is missing or differs from `ref`. */
  loadConversation(ref: ConversationRef): Promise<Message[]>;
  /** Writes messages to the run's conversation log; a retry writes the same rows again. */
  storeMessages(input: StoreMessagesInput): Promise<void>;
  /** A page of the run's conversation log; the workflow checks the chain once it has every page. */
  loadMessages(input: LoadMessagesInput): Promise<Message[]>;
}
