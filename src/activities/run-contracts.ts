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

/**
 * Activities the agentRun workflow schedules. `callModel` throws non-retryable
 * ModelExhausted / ModelError failures; transient provider errors are retried.
 */
export interface RunActivities extends Pick<GateActivities, 'executeTool' | 'recordAuditEvent'> {
  callModel(input: CallModelInput): Promise<AssistantMessage>;
  listPermittedTools(input: DomainRef): Promise<ToolSpec[]>;
  planToolCall(input: PlanToolCallInput): Promise<PlannedCall>;
}
