import {
  ApplicationFailure,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  patched,
  proxyActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { checkPayload, EvidencePayload, payloadSha256 } from '../common/evidence';
import type { GateInput, GateState } from '../common/gate-state';
import { digest } from '../common/hashing';
import { RoleName } from '../policy/reviewer-policy';
import { EscalationChain, NotifyTarget } from '../policy/policy-v2';
import { INLINE_CHAIN, levelsPastExpiry, type GateChain } from '../common/escalation';
import { toldAtCreation } from './internal/notify-defaults';
import { TENANT_SHAPE } from '../common/tenant';
import type { EvaluatePolicyResult, GateActivities } from '../worker/activities/contracts';
import type { RecordedReview } from '../policy/reviewer-policy';
import type { approvalGateWorkflow } from './gate/approval-gate';
import { GATE_TENANT, gateStartAttributes } from './gate/messages';
import { nextRequestId } from './request-id';
import type { ApprovalRequest, RequireApprovalOptions } from './types';

const Roles = z.array(RoleName).min(1).max(50);
/**
 * Patch id of the one judgement for workflow gates: the worker's rule file judges the whole
 * request (`evaluatePolicy`: version 2 conditions, allow and block at creation, standing
 * grants) where 0.1.0 asked it only who decides (`resolveReviewers`).
 */
export const WORKFLOW_GATE_JUDGED_PATCH = 'workflow-gate-judged';
/**
 * Patch id of workflow gates told the worker's GATE_NOTIFY when neither the request nor its
 * rule names targets, as the API's creates are (0.2.0 told them nobody). Asked only then.
 */
export const WORKFLOW_GATE_NOTIFY_DEFAULTS_PATCH = 'workflow-gate-notify-defaults';
const RULES_OPTIONS = { startToCloseTimeout: '10s', retry: { initialInterval: '1s', maximumAttempts: 5 } } as const;

/** The gate could not be opened because its request id was used before: the state it ended in is not handed out again. */
export interface ReusedRequest {
  reused: true;
  request_id: string;
}

/**
 * Opens an approval gate (the `workflow` executor) as a child of the calling workflow
 * and waits for its end. Cancelling the caller cancels a pending gate; the caller
 * closing any other way asks it to cancel too. Throws a non-retryable
 * ApplicationFailure (InvalidInput) when the request is not valid evidence, before
 * anything is started.
 */
export async function openGate(
  request: ApprovalRequest,
  options: RequireApprovalOptions,
  recheck?: { activity: string; taskQueue?: string },
): Promise<GateState | ReusedRequest> {
  const info = workflowInfo();
  const requestId = options.requestId ?? nextRequestId();
  const ttlMs = msToNumber(request.ttl);
  const parsed = EvidencePayload.safeParse({
    request_id: requestId,
    correlation_id: request.correlation_id ?? info.workflowId,
    agent_id: options.agentId ?? info.workflowType,
    trigger_event_id: `${info.workflowId}/${requestId}`,
    action: request.action,
    target: request.target,
    summary: request.summary,
    blast_radius: request.blast_radius ?? {},
    args: request.args,
    preconditions: request.preconditions ?? {},
    ...(request.snapshot ? { snapshot: request.snapshot } : {}),
    ...(request.interaction ? { interaction: request.interaction } : {}),
    idempotency_key: requestId,
    expires_at: new Date(Date.now() + ttlMs).toISOString(), // workflow clock: replays give the same deadline
  });
  const approvals = request.approvals_required ?? 1;
  const tenant = options.tenant ?? info.typedSearchAttributes.get(GATE_TENANT);
  const problems = parsed.success
    ? (checkPayload(parsed.data)?.message ?? '')
    : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  const badApprovals = !Number.isInteger(approvals) || approvals < 1 || approvals > 10;
  const badRoles = request.reviewer_roles !== undefined && !Roles.safeParse(request.reviewer_roles).success;
  const badTenant = tenant !== undefined && !TENANT_SHAPE.test(tenant);
  const chain = inlineChain(request, ttlMs);
  const badNotify = request.notify !== undefined && !Targets.safeParse(request.notify).success;
  if (
    !parsed.success ||
    problems ||
    badApprovals ||
    !(ttlMs > 0) ||
    badRoles ||
    badTenant ||
    chain.problems ||
    badNotify
  )
    throw invalid([
      problems,
      badApprovals ? 'approvals_required: must be 1..10' : '',
      ttlMs > 0 ? '' : 'ttl: must be positive',
      badRoles ? 'reviewer_roles: 1 to 50 role names (letters, digits and . _ : @ / -)' : '',
      badTenant ? `tenant: "${tenant}" is not a tenant id (1-63 of a-z 0-9 _ -)` : '',
      chain.problems ?? '',
      badNotify ? 'notify: up to 20 targets, each slack:#channel, slack:@member, email:address or teams:<name>' : '',
    ]);
  const gateQueue = options.taskQueue ?? info.taskQueue;
  const asked = {
    approvals_required: approvals,
    ...(request.reviewer_roles ? { reviewer_roles: request.reviewer_roles } : {}),
  };
  // The rule file of a worker that hosts the gate judges the request: who decides, or allow/block at once.
  let judged: EvaluatePolicyResult | undefined;
  let review: RecordedReview | { problem: string };
  if (patched(WORKFLOW_GATE_JUDGED_PATCH)) {
    const p = parsed.data;
    judged = await policyOn(gateQueue).evaluatePolicy({
      request_id: requestId,
      action: p.action,
      target: p.target,
      summary: p.summary,
      args: p.args,
      blast_radius: p.blast_radius,
      preconditions: p.preconditions,
      agent: p.agent_id,
      tenant: tenant ?? 'default',
      ...asked,
      via: 'workflow',
    });
    review = judged.review;
  } else review = await policyOn(gateQueue).resolveReviewers({ action: parsed.data.action, ...asked });
  if ('problem' in review) throw invalid([review.problem]);
  const limited = review.reviewer_policy !== undefined || judged?.evidence !== undefined || chain.chain !== undefined;
  // The chain and the targets told at creation: the request's own, else its rule's (bound into the evidence).
  const escalation = chain.chain ?? judged?.evidence?.escalation;
  const notify = toldAtCreation(
    request.notify,
    judged?.evidence?.notify,
    judged?.default_notify,
    WORKFLOW_GATE_NOTIFY_DEFAULTS_PATCH,
  );
  const payload = {
    ...parsed.data,
    ...(review.reviewer_policy ? { reviewer_policy: review.reviewer_policy } : {}),
    ...(judged?.evidence ? { policy: judged.evidence } : {}),
    ...(escalation ? { escalation } : {}),
    ...(notify.length > 0 ? { notify } : {}),
    // The rule's ttl is an upper bound on the request's.
    ...(judged?.ttl_seconds ? { expires_at: earliest(parsed.data.expires_at, judged.ttl_seconds) } : {}),
  };
  const tooLarge = limited ? checkPayload(payload) : null;
  if (tooLarge) throw invalid([tooLarge.message]);
  const escalate = request.escalate_before === undefined ? undefined : msToNumber(request.escalate_before);
  const input: GateInput = {
    payload,
    payload_sha256: payloadSha256(payload),
    approvals_required: review.approvals_required,
    executor: 'workflow',
    consume_ttl_seconds: 60, // unused by this executor: the hand-over is immediate
    ...(escalate ? { escalate_before_seconds: Math.max(1, Math.round(escalate / 1000)) } : {}),
    create_sha256: digest({ parent: info.workflowId, request_id: requestId }),
    run_id: info.workflowId, // the GateRunId search attribute names the parent
    parent: {
      workflow_id: info.workflowId,
      ...(recheck ? { recheck: { activity: recheck.activity, task_queue: recheck.taskQueue ?? info.taskQueue } } : {}),
    },
    ...(judged?.decision ? { policy_decision: judged.decision } : {}),
    ...(judged?.shadow.length ? { policy_shadow: judged.shadow } : {}),
  };
  let child;
  try {
    child = await startChild<typeof approvalGateWorkflow>('approvalGateWorkflow', {
      workflowId: requestId,
      taskQueue: gateQueue,
      args: [input],
      // One request id, one gate, ever: a second start (a retried parent with a fixed id) is refused, not reopened.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      ...gateStartAttributes(input, requestId, {
        runId: info.workflowId,
        ...(tenant !== undefined ? { tenant } : {}),
      }),
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { reused: true, request_id: requestId };
    throw err;
  }
  return child.result();
}

const Targets = z.array(NotifyTarget).max(20);

/** The request's own chain in evidence form, or why it cannot be: a bad level, or one at or after the TTL. */
function inlineChain(request: ApprovalRequest, ttlMs: number): { chain?: GateChain; problems?: string } {
  if (request.escalation === undefined) return {};
  const levels = request.escalation.levels?.map((l) => {
    const ms = msToNumber(l.after);
    return { ...l, after: ms > 0 ? Math.max(1, Math.round(ms / 1000)) : 0 };
  });
  const r = EscalationChain.safeParse({ ...request.escalation, levels });
  if (!r.success)
    return { problems: r.error.issues.map((i) => `escalation.${i.path.join('.')}: ${i.message}`).join('; ') };
  const chain: GateChain = {
    name: INLINE_CHAIN,
    levels: r.data.levels.map((l) => ({
      after_seconds: l.after as number,
      ...(l.notify ? { notify: l.notify } : {}),
      ...(l.roles ? { roles: l.roles } : {}),
    })),
    repeat: r.data.repeat,
  };
  const late = levelsPastExpiry(chain, ttlMs / 1000);
  return late.length > 0 ? { problems: late.map((l) => `${l.path}: ${l.message}`).join('; ') } : { chain };
}

function invalid(problems: string[]): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'InvalidInput',
    message: `requireApproval: the request is not valid evidence: ${problems.filter(Boolean).join('; ')}`,
    nonRetryable: true,
  });
}

/**
 * The rule file of a worker that hosts the gate (its queue has the gate's activities). A
 * regular activity, not a local one: a workflow may open gates beside other work
 * (`Promise.all` of gated calls), and a local activity's result lands in another
 * activation on replay than it did live, which can reorder commands (nondeterminism).
 */
function policyOn(gateQueue: string): Pick<GateActivities, 'resolveReviewers' | 'evaluatePolicy'> {
  return proxyActivities<GateActivities>({ ...RULES_OPTIONS, taskQueue: gateQueue });
}

/** The deadline, or `seconds` from now (the workflow clock) when that is earlier. */
function earliest(expiresAt: string, seconds: number): string {
  const cap = Date.now() + seconds * 1000;
  return Date.parse(expiresAt) > cap ? new Date(cap).toISOString() : expiresAt;
}
