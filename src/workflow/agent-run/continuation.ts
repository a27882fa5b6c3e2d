import {
  allHandlersFinished,
  CancellationScope,
  CancelledFailure,
  condition,
  makeContinueAsNewFunc,
  workflowInfo,
} from '@temporalio/workflow';
import {
  continueReason,
  mustOffload,
  type CarriedConversation,
  type ContinuationLimits,
  type ContinueReason,
} from '../../common/continuation';
import type { Message } from '../../common/conversation';
import type { ConversationLog } from '../../common/conversation-log';
import { store, storeUnstored } from './conversation';
import type { AuditTrail } from '../gate/audit-trail';
import type { RunInput, RunView } from './messages';
import type { agentRunWorkflow } from './agent-run';

/**
 * Patch id of continue-as-new in agentRunWorkflow. Histories recorded before it replay on
 * the one-execution path (no continuation checks, no `executions` in the view). Never
 * remove while runs started before it may still be open.
 */
export const RUN_CONTINUE_AS_NEW_PATCH = 'agent-run-continue-as-new-v1';

/** The carried conversation, loaded from the store when the previous execution offloaded it. */
export async function restoreConversation(c: Exclude<CarriedConversation, { log: unknown }>): Promise<Message[]> {
  return 'stored' in c ? store.loadConversation(c.stored) : c.messages;
}

/** Why this execution should hand over before the next model call, read from `workflowInfo()`. */
export function continueReasonNow(view: RunView, turnsHere: number, limits: ContinuationLimits): ContinueReason | null {
  const info = workflowInfo();
  return continueReason(
    {
      turns: turnsHere,
      historyBytes: info.historySize,
      historyEvents: info.historyLength,
      suggested: info.continueAsNewSuggested,
      pending: view.pending_approvals.length + view.pending_interactions.length,
    },
    limits,
  );
}

/** What the run hands over; the conversation and audit head are filled in by `continueRun`. */
export interface HandOver {
  input: RunInput;
  view: RunView;
  trail: AuditTrail;
  denied: ReadonlySet<string>;
  /** Model calls so far, all executions. */
  turns: number;
  reason: ContinueReason;
  limits: ContinuationLimits;
  /** The run's conversation log (runs since RUN_CONVERSATION_LOG_PATCH): the rest is written to it and the next input names it. */
  log?: ConversationLog;
}

/**
 * Continues the run as a new execution; never returns (throws ContinueAsNew). Called only
 * at a turn boundary with nothing pending. Order matters: the conversation is saved (when
 * too large to carry) before the `run.continued` event that names it, handlers finish
 * before the trail's last writes, and the chain head is read after the flush, so the next
 * execution's first event links to the very last one written here.
 */
export async function continueRun(h: HandOver): Promise<never> {
  const { input, view, trail } = h;
  const execution = (view.executions ?? 1) + 1;
  let conversation: CarriedConversation;
  if (h.log) {
    await storeUnstored(h.log, view.messages);
    conversation = { log: h.log.ref() };
  } else
    conversation = mustOffload(view.messages, h.limits)
      ? { stored: await store.saveConversation({ run_id: input.run_id, execution, messages: view.messages }) }
      : { messages: view.messages };
  trail.append({
    event_type: 'run.continued',
    actor_type: 'system',
    actor_id: 'approval-gate',
    note: `continued as new execution ${execution} after ${h.turns} model calls (${h.reason})`,
    data: {
      execution,
      turns: h.turns,
      reason: h.reason,
      messages: view.messages.length,
      ...('stored' in conversation ? { conversation_sha256: conversation.stored.sha256 } : {}),
      ...('log' in conversation ? { conversation_head: conversation.log.head } : {}),
    },
  });
  await condition(allHandlersFinished);
  await trail.flush();
  // A cancel that arrived during the hand-over ends this run here; continuing would drop it.
  if (CancellationScope.current().consideredCancelled)
    throw new CancelledFailure('run cancelled while continuing as new');
  const info = workflowInfo();
  const next: RunInput = {
    ...input,
    continuation: { execution, turns: h.turns, conversation, denied: [...h.denied], audit_head: trail.last! },
  };
  // Memo (the run's agent, read by cancel) and search attributes carry over explicitly.
  return makeContinueAsNewFunc<typeof agentRunWorkflow>({
    memo: info.memo,
    typedSearchAttributes: info.typedSearchAttributes,
  })(next);
}
