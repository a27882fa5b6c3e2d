import { allHandlersFinished, condition, makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import type { GateCarry, GateInput, GateState } from '../../common/gate-state';
import type { DeliverNoticeInput } from '../../common/notice';
import type { AuditTrail } from './audit-trail';

/** History events one gate execution may reach before it hands over, unless its input says otherwise. */
export const DEFAULT_MAX_HISTORY_EVENTS = 10_000;

/**
 * True once this execution's history is long enough to hand over: Temporal suggests it,
 * or the event count reached the gate's limit. Read from `workflowInfo()`, which replay
 * reproduces, so the decision is deterministic.
 */
export function historyFull(input: GateInput): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= (input.max_history_events ?? DEFAULT_MAX_HISTORY_EVENTS);
}

/**
 * Continues the gate as a new execution; never returns. Handlers finish first (a decision
 * being validated completes here); the trail's unfinished writes and deliveries travel in
 * the carry instead of being awaited, so the handover takes no round trip a flood could
 * outrun. Memo and search attributes carry over (the server copies them when the command
 * names none); the workflow id, and so the request id, stays.
 */
export async function continueGate(
  input: GateInput,
  state: GateState,
  trail: AuditTrail,
  refusalsRecorded: number,
  notices?: DeliverNoticeInput[],
): Promise<never> {
  await condition(allHandlersFinished);
  const executions = (input.continued?.executions ?? 1) + 1;
  state.executions = executions;
  const carry: GateCarry = {
    state,
    ...trail.handOver(),
    refusals_recorded: refusalsRecorded,
    executions,
    ...(notices?.length ? { notices } : {}),
  };
  const { requested_event: _written, continued: _previous, ...rest } = input;
  // approvalGateWorkflow's signature, written out: importing its type would tie this file and approval-gate.ts in a cycle.
  return makeContinueAsNewFunc<(input: GateInput) => Promise<GateState>>()({ ...rest, continued: carry });
}
