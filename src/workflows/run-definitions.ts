import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Message } from '../core/conversation';
import type { Interaction, InteractionResponse } from '../core/interaction';
import type { ModelSpec } from '../models/spec';

/** Input of agentRunWorkflow (what `POST /v1/runs` starts). */
export interface RunInput {
  run_id: string;
  goal: string;
  domain: string;
  model: ModelSpec;
  /** The agent (key id) the run acts for; gates name it as requester. */
  agent_id: string;
  /** TTL of each approval the run opens. */
  approval_ttl_seconds: number;
  /** Model calls before the run gives up. */
  max_turns: number;
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
