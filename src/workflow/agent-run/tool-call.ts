import {
  ActivityFailure,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  metricMeter,
  patched,
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
import type { PlannedCall, RunActivities } from '../../worker/activities/run-contracts';
import type { EvaluatePolicyResult } from '../../worker/activities/contracts';
import { GateMetric, labelValue, meterName } from '../../common/metrics-catalog';
import type { AuditTrail } from '../gate/audit-trail';
import { approvalGateWorkflow } from '../gate/approval-gate';
import { failureMessageOf, isToolFailed, TOOL_ACTIVITY_OPTIONS } from '../internal/failures';
import { toldAtCreation } from '../internal/notify-defaults';
import { gateStartAttributes } from '../gate/messages';
import type { PendingInteraction, RunInput, RunView } from './messages';
import type { InteractionResponse } from '../../common/interaction';

/**
 * Patch id of run calls judged by a version 2 rule file (`PlannedCall.judged`): the plan
 * carries the file's reviewers, evidence, shadow verdicts and a standing grant's decision,
 * so the gate opens without `resolveReviewers`, and allowed calls and shadow verdicts are
 * recorded in the run's trail. Plans recorded by 0.1.0 have no `judged`.
 */
export const RUN_CALL_JUDGED_PATCH = 'run-call-judged';
/**
 * Patch id of a run's tool gates told the worker's GATE_NOTIFY when the rule names no targets,
 * as the API's creates are (0.2.0 told them nobody). Asked only then.
 */
export const RUN_CALL_NOTIFY_DEFAULTS_PATCH = 'run-call-notify-defaults';

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
  const judged: { rule?: EvaluatePolicyResult } = {};
  const r = await resultOf(ctx, call, judged);
  const rule = judged.rule;
  ctx.trail.append({
    event_type: r.outcome === 'blocked' || r.outcome === 'invalidated' ? 'policy.blocked' : 'tool.result',
    actor_type: 'system',
    actor_id: 'approval-gate',
    note: r.outcome === 'blocked' ? r.reason : undefined,
    data: {
      call_id: call.id,
      tool: call.name,
      outcome: r.outcome,
      // Only calls judged by a version 2 file name their rule: the trail of 0.1.0 runs stays as recorded.
      ...(rule ? { rule_id: rule.rule_id, decided_by: rule.effect === 'require' ? null : rule.decided_by } : {}),
    },
  });
  return toolResultMessage(call.id, r);
}

/**
 * A call the rule file judged: its shadow verdicts in the run's trail (unless a gate records
 * them), counted; and an allowed call's rule before the tool runs without a gate.
 */
function recordJudgement(ctx: CallContext, call: ToolCall, plan: PlannedCall, j: EvaluatePolicyResult): void {
  const gated = plan.policy === 'require_approval';
  if (!gated)
    for (const s of j.shadow) {
      ctx.trail.append({
        event_type: 'policy.shadow',
        actor_type: 'system',
        actor_id: `policy:${s.rule_id}`,
        note: s.message,
        data: {
          call_id: call.id,
          tool: call.name,
          rule_id: s.rule_id,
          mode: s.mode,
          effect: s.effect,
          values: s.values,
        },
      });
      // Not a command, and not emitted on replay (see gate/metrics.ts).
      metricMeter
        .createCounter(meterName(GateMetric.policyShadow), undefined, GateMetric.policyShadow.help)
        .add(1, { rule: labelValue(s.rule_id), effect: s.effect });
    }
  if (plan.policy === 'allow' && j.version === 2)
    ctx.trail.append({
      event_type: 'policy.allowed',
      actor_type: 'system',
      actor_id: j.decided_by,
      note: j.reason,
      data: {
        call_id: call.id,
        tool: call.name,
        rule_id: j.rule_id,
        policy_sha256: j.evidence?.policy_sha256 ?? null,
        values: j.evidence?.values ?? {},
      },
    });
}

async function resultOf(
  ctx: CallContext,
  call: ToolCall,
  judged: { rule?: EvaluatePolicyResult },
): Promise<ToolResultInput> {
  if (call.name === 'ask_user') return askUser(ctx, call);
  const ref = { domain: ctx.input.domain, session_id: ctx.input.run_id };
  let plan: PlannedCall;
  try {
    plan = await adapter.planToolCall({
      ...ref,
      tool: call.name,
      args: call.args,
      // What a version 2 rule file reads (and the call's gate id, for standing grants).
      call_id: call.id,
      agent_id: ctx.input.agent_id,
      ...(ctx.input.tenant !== undefined ? { tenant: ctx.input.tenant } : {}),
    });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    // Fail closed: a call whose policy cannot be evaluated does not run, and the model is told.
    return {
      outcome: 'blocked',
      reason: `policy could not be evaluated (${err.cause?.message ?? err.message}); nothing ran, try again later`,
    };
  }
  const j = 'judged' in plan ? plan.judged : undefined;
  if (j && patched(RUN_CALL_JUDGED_PATCH)) {
    judged.rule = j;
    recordJudgement(ctx, call, plan, j);
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
      const r = await gate(ctx, call, plan, judged.rule);
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
  plan: Extract<PlannedCall, { policy: 'require_approval' }>,
  judged: EvaluatePolicyResult | undefined,
): Promise<ToolResultInput> {
  const { input, view } = ctx;
  const requestId = `${input.run_id}-${call.id}`;
  // The worker's rule file may raise the approvals and name the roles that decide (recorded in the
  // evidence): judged with the plan by a version 2 file, asked here otherwise.
  const review = judged ? judged.review : await reviewersFor(plan.evidence.action, plan.approvals_required);
  if ('problem' in review) return { outcome: 'blocked', reason: review.problem };
  const ttlSeconds = Math.min(input.approval_ttl_seconds, judged?.ttl_seconds ?? Infinity);
  // The rule's targets (an empty list tells nobody), else the worker's GATE_NOTIFY.
  const told = toldAtCreation(undefined, judged?.evidence?.notify, plan.default_notify, RUN_CALL_NOTIFY_DEFAULTS_PATCH);
  const payload: EvidencePayload = {
    request_id: requestId,
    correlation_id: input.run_id,
    agent_id: input.agent_id,
    trigger_event_id: `${input.run_id}/${call.id}`,
    ...plan.evidence,
    args: plan.input,
    idempotency_key: requestId,
    expires_at: new Date(Date.now() + ttlSeconds * 1000).toISOString(), // workflow clock
    ...(review.reviewer_policy ? { reviewer_policy: review.reviewer_policy } : {}),
    ...(judged?.evidence ? { policy: judged.evidence } : {}),
    // The rule's chain and targets, as the API's creates bind them (levels after the expiry never fire).
    ...(judged?.evidence?.escalation ? { escalation: judged.evidence.escalation } : {}),
    ...(told.length ? { notify: told } : {}),
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
    // A standing grant that answers this call, and the shadow verdicts the gate's trail records.
    ...(judged?.decision ? { policy_decision: judged.decision } : {}),
    ...(judged?.shadow.length ? { policy_shadow: judged.shadow } : {}),
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
