import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AuditEvent } from '../../common/audit';
import type { ContinuationLimits } from '../../common/continuation';
import type { Message } from '../../common/conversation';
import type { ConversationLogRef } from '../../common/conversation-log';
import type { Interaction, InteractionResponse } from '../../common/interaction';
import type { ModelSpec } from '../../common/model-spec';

/** Input of agentRunWorkflow (what `POST /v1/runs` starts). */
export interface RunInput {
  run_id: string;
  goal: string;
  domain: string;
  model: ModelSpec;
  /** The agent (key id) the run acts for; gates name it as requester. */
  agent_id: string;
  /** The tenant of the agent's key; the run's gates belong to it. Absent: the default tenant. */
  tenant?: string;
  /** TTL of each approval the run opens. */
  approval_ttl_seconds: number;
  /** Model calls before the run gives up, across all its executions. */
  max_turns: number;
  /** When an execution continues as new (defaults: `DEFAULT_CONTINUATION_LIMITS`); tests set them small. */
  continue_as_new?: Partial<ContinuationLimits>;
  /** Set only by the run itself when it continues as new: what the previous execution hands over. */
  continuation?: RunContinuation;
}

/**
 * The state one execution of a run hands to the next. Continuing happens only at a turn
 * boundary with nothing pending, so this is all the loop needs: no gate, interaction or
 * half-done batch is ever carried.
 */
export interface RunContinuation {
  /** This execution's number: 2 for the first continuation. */
  execution: number;
  /** Model calls made by all earlier executions (counted against max_turns). */
  turns: number;
  /** The conversation so far: its log's ref (the messages are in the store). */
  conversation: { log: ConversationLogRef };
  /** Denial memory (digests of tool + assembled input a reviewer rejected). */
  denied: string[];
  /** The run trail's last event, so the hash chain continues (seq, prev_hash). */
  audit_head: AuditEvent;
}

export type RunStatus = 'running' | 'waiting_approval' | 'waiting_interaction' | 'completed' | 'failed' | 'cancelled';

/** A pending interaction as the API shows it. */
export type PendingInteraction = Interaction & { id: string; call_id: string };

/** What `GET /v1/runs/{id}` returns. */
export interface RunView {
  run_id: string;
  status: RunStatus;
  goal: string;
  domain: string;
  messages: Message[];
  /** Gates (request ids) the run waits on, by tool call. */
  pending_approvals: { call_id: string; request_id: string; tool: string }[];
  pending_interactions: PendingInteraction[];
  final_answer?: string;
  error?: string;
  /** The failure type of the cause of a failed run (`ModelError`, `ModelUnavailable`, `ToolFailed`…). */
  error_type?: string;
  /** Refused signals past the audit cap, counted instead of recorded. */
  refusals_unrecorded?: number;
  /** Workflow executions the run has used so far (1 until it first continues as new). */
  executions?: number;
  /** Model calls so far, across executions. */
  turns?: number;
  /**
   * Leading messages left out of `messages` because the whole conversation is too large
   * for one answer (runs since the conversation log); `conversation` names them in the
   * store. RunClient reads them back, so `GET /v1/runs/{id}` always shows every message.
   */
  messages_omitted?: number;
  conversation?: ConversationLogRef;
}

/** The gate tells its run which args will really execute, before it runs the tool. */
export interface ArgsFinalized {
  call_id: string;
  request_id: string;
  args: Record<string, unknown>;
  executed_values?: Record<string, unknown>;
}

export const getRunQuery = defineQuery<RunView>('getRun');
/** A person answers an interaction; the validator refuses a response that does not fit (422). */
export const respondInteractionUpdate = defineUpdate<RunView, [string, InteractionResponse]>('respondInteraction');
/** Sent by a child gate after a modification is validated and before its tool runs. */
export const argsFinalizedSignal = defineSignal<[ArgsFinalized]>('argsFinalized');
