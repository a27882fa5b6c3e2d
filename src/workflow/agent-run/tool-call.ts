import {
  ActivityFailure,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { ToolCall, ToolMessage } from '../../common/conversation';
import { payloadSha256, type EvidencePayload } from '../../common/evidence';
import type { GateInput, GateState } from '../../common/gate-state';
import { digest } from '../../common/hashing';
import { Interaction } from '../../common/interaction';
import type { RecordedReview } from '../../policy/reviewer-policy';
import { toolResultMessage, type ToolResultInput } from '../../common/tool-result';
import type { RunActivities } from '../../worker/activities/run-contracts';
import type { CallPlan } from '../../domain/types';
import type { AuditTrail } from '../gate/audit-trail';
import { approvalGateWorkflow } from '../gate/approval-gate';
import { failureMessageOf, isToolFailed, TOOL_ACTIVITY_OPTIONS } from '../internal/failures';
import { gateStartAttributes } from '../gate/messages';
import type { PendingInteraction, RunInput, RunView } from './messages';
import type { InteractionResponse } from '../../common/interaction';

const adapter = proxyActivities<RunActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 12 },
});
const tools = proxyActivities<RunActivities>(TOOL_ACTIVITY_OPTIONS);
/**
 * The worker's rule file (loaded at start, answered from memory). A regular activity, not a
 * local one: beside other calls of the same turn, a local activity's result lands in another
 * activation on replay than it did live, which reorders the trail's writes (nondeterminism).
 */
const rules = proxyActivities<RunActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', maximumAttempts: 5 },
});

/** What one call's task needs from its run. */
export interface CallContext {
  input: RunInput;
  view: RunView;
  /** Digests of (tool, args) a reviewer rejected in this run: never asked again. */
  denied: Set<string>;
  trail: AuditTrail;
  refreshWaiting(): void;
  awaitAnswer(p: PendingInteraction): Promise<InteractionResponse>;
}

/**
 * One tool call as its own task: policy first, then the tool or a child gate. Always
 * returns exactly one result message for the call's own trouble (a block, a denial, the
 * tool's own refusal); only cancellation, bugs and failures that outlived their retries
 * (named by their type, see internal/failures.ts) propagate and end the run.
 */
export async function runToolCall(ctx: CallContext, call: ToolCall): Promise<ToolMessage> {
  const r = await resultOf(ctx, call);
  ctx.trail.append({
    event_type: r.outcome === 'blocked' || r.outcome === 'invalidated' ? 'policy.blocked' : 'tool.result',
    actor_type: 'system',
    actor_id: 'approval-gate',
    note: r.outcome === 'blocked' ? r.reason : undefined,
    data: { call_id: call.id, tool: call.name, outcome: r.outcome },
  });
  return toolResultMessage(call.id, r);
}

async function resultOf(ctx: CallContext, call: ToolCall): Promise<ToolResultInput> {
  if (call.name === 'ask_user') return askUser(ctx, call);
  const ref = { domain: ctx.input.domain, session_id: ctx.input.run_id };
  let plan;
  try {
    plan = await adapter.planToolCall({ ...ref, tool: call.name, args: call.args });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    // Fail closed: a call whose policy cannot be evaluated does not run, and the model is told.
    return {
      outcome: 'blocked',
      reason: `policy could not be evaluated (${err.cause?.message ?? err.message}); nothing ran, try again later`,
    };
  }
  // Denial memory is keyed on the input the adapter assembled, not the model's args: the same
  // plan is not asked again, while a changed plan (a new draft) is a new request.
  const deniedKey = plan.policy === 'require_approval' ? digest([call.name, plan.input]) : undefined;
  if (deniedKey && ctx.denied.has(deniedKey)) {
    return {
      outcome: 'blocked',
      reason: 'a reviewer already rejected this exact call in this run; it is not asked again. Change the plan instead',
    };
  }
  switch (plan.policy) {
    case 'unknown_tool':
      return { outcome: 'unknown_tool', tool: call.name, known_tools: plan.known };
    case 'invalid_args':
      return { outcome: 'invalid_args', tool: call.name, issues: plan.issues };
    case 'block':
      return { outcome: 'blocked', reason: plan.reason };
    case 'allow':
      return execute(ctx, call, plan.input);
    case 'require_approval': {
      const r = await gate(ctx, call, plan);
      if (r.outcome === 'denied') ctx.denied.add(deniedKey!);
      return r;
    }
  }
}

async function execute(ctx: CallContext, call: ToolCall, input: Record<string, unknown>): Promise<ToolResultInput> {
  try {
    const out = await tools.executeTool({
      domain: ctx.input.domain,
      session_id: ctx.input.run_id,
      tool: call.name,
      input,
      idempotency_key: `${ctx.input.run_id}:${call.id}`,
    });
    return { outcome: 'success', content: out.content, values: out.values };
  } catch (err) {
    // Only the tool's own final refusal is the call's result; anything else that outlived the retries ends the run, named.
    if (isToolFailed(err)) return { outcome: 'failure', error: failureMessageOf(err) };
    throw err;
  }
}

/** Opens a child approvalGate (tool executor) and maps its terminal state to one result. */
async function gate(
  ctx: CallContext,
  call: ToolCall,
  plan: Extract<CallPlan, { policy: 'require_approval' }>,
): Promise<ToolResultInput> {
  const { input, view } = ctx;
  const requestId = `${input.run_id}-${call.id}`;
  // The worker's rule file may raise the approvals and name the roles that decide (recorded in the evidence).
  const review = await reviewersFor(plan.evidence.action, plan.approvals_required);
  if ('problem' in review) return { outcome: 'blocked', reason: review.problem };
  const payload: EvidencePayload = {
    request_id: requestId,
    correlation_id: input.run_id,
    agent_id: input.agent_id,
    trigger_event_id: `${input.run_id}/${call.id}`,
    ...plan.evidence,
    args: plan.input,
    idempotency_key: requestId,
    expires_at: new Date(Date.now() + input.approval_ttl_seconds * 1000).toISOString(), // workflow clock
    ...(review.reviewer_policy ? { reviewer_policy: review.reviewer_policy } : {}),
  };
  const gateInput: GateInput = {
    payload,
    payload_sha256: payloadSha256(payload),
    approvals_required: review.approvals_required,
    executor: 'tool',
    consume_ttl_seconds: 60,
    create_sha256: digest({ run_id: input.run_id, call_id: call.id }),
    tool: { domain: input.domain, session_id: input.run_id },
    run_id: input.run_id,
    call_id: call.id,
  };
  const child = await startChild(approvalGateWorkflow, {
    workflowId: requestId,
    taskQueue: workflowInfo().taskQueue,
    args: [gateInput],
    // Cancelling the run cancels its pending gates and waits until they say `cancelled`.
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    // The run's gates are its tenant's (a run without one: the default tenant's).
    ...gateStartAttributes(gateInput, requestId, {
      runId: input.run_id,
      ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
    }),
  });
  view.pending_approvals.push({ call_id: call.id, request_id: requestId, tool: call.name });
  ctx.refreshWaiting();
  let final: GateState;
  try {
    final = await child.result();
  } finally {
    view.pending_approvals = view.pending_approvals.filter((p) => p.request_id !== requestId);
    ctx.refreshWaiting();
  }
  return fromGate(final);
}

/** The rule file's answer, or a problem (fail closed: a call whose reviewers cannot be known is not asked). */
async function reviewersFor(action: string, approvals: number): Promise<RecordedReview | { problem: string }> {
  try {
    return await rules.resolveReviewers({ action, approvals_required: approvals });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    return {
      problem: `the reviewer rules could not be read (${err.cause?.message ?? err.message}); nothing ran, try again later`,
    };
  }
}

/** A gate's terminal state as the call's one result. */
export function fromGate(g: GateState): ToolResultInput {
  const values = { request_id: g.request_id };
  switch (g.status) {
    case 'consumed':
      if (g.execution?.outcome === 'success') {
        return {
          outcome: 'success',
          content: g.execution.content,
          values: { ...values, ...g.execution.values },
          ...(g.modified_by ? { executed_values: g.executed_values ?? g.final_args } : {}),
        };
      }
      return { outcome: 'failure', error: g.execution?.error ?? 'the tool did not report a result', values };
    case 'denied':
      return {
        outcome: 'denied',
        reason: g.status_reason ?? 'no reason given',
        reviewer_id: g.decision?.reviewer_id,
        values,
      };
    case 'expired':
      return { outcome: 'expired', expires_at: g.expires_at, values };
    case 'invalidated':
      return {
        outcome: 'invalidated',
        mismatches: [g.status_reason ?? 'the approved snapshot no longer matches'],
        values,
      };
    default:
      return { outcome: 'cancelled', reason: g.status_reason, values };
  }
}

/** `ask_user`: a structured Interaction; the run waits until a response that fits arrives. */
async function askUser(ctx: CallContext, call: ToolCall): Promise<ToolResultInput> {
  const parsed = Interaction.safeParse(call.args);
  if (!parsed.success)
    return {
      outcome: 'invalid_args',
      tool: call.name,
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    };
  // The run names interactions after their call (unique in a run), so an id can never be reused.
  const pending: PendingInteraction = { ...parsed.data, id: `int_${call.id}`, call_id: call.id };
  const answer = await ctx.awaitAnswer(pending);
  return {
    outcome: 'success',
    content: `The person answered ${pending.type} "${pending.prompt}": ${JSON.stringify(answer.value)}${answer.comment ? ` (comment: ${answer.comment})` : ''}`,
    values: {
      interaction_id: pending.id,
      value: answer.value,
      ...(answer.responder_id ? { responder_id: answer.responder_id } : {}),
    },
  };
}
