import {
  allHandlersFinished,
  CancellationScope,
  CancelledFailure,
  condition,
  makeContinueAsNewFunc,
  workflowInfo,
} from '@temporalio/workflow';
import { continueReason, type ContinuationLimits, type ContinueReason } from '../../common/continuation';
import type { ConversationLog } from '../../common/conversation-log';
import { storeUnstored } from './conversation';
import type { AuditTrail } from '../gate/audit-trail';
import type { RunInput, RunView } from './messages';

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
  /** The run's conversation log: what it does not hold yet is written to it, and the next input names it. */
  log: ConversationLog;
}

/**
 * Continues the run as a new execution; never returns (throws ContinueAsNew). Called only
 * at a turn boundary with nothing pending. Order matters: the conversation is stored
 * before the `run.continued` event that names it, handlers finish
 * before the trail's last writes, and the chain head is read after the flush, so the next
 * execution's first event links to the very last one written here.
 */
export async function continueRun(h: HandOver): Promise<never> {
  const { input, view, trail } = h;
  const execution = (view.executions ?? 1) + 1;
  await storeUnstored(h.log, view.messages);
  const conversation = { log: h.log.ref() };
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
      conversation_head: conversation.log.head,
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
  // agentRunWorkflow's signature, written out: importing its type would tie this file and agent-run.ts in a cycle.
  return makeContinueAsNewFunc<(input: RunInput) => Promise<RunView>>({
    memo: info.memo,
    typedSearchAttributes: info.typedSearchAttributes,
  })(next);
}
