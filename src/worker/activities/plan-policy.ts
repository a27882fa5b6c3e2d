import type { CallPlan, DomainTool } from '../../domain/types';
import type { PlannedCall, PlanToolCallInput } from './run-contracts';
import { defaultNotify, evaluatePolicy, type PolicyActivityDeps } from './policy';

/**
 * An agent run's call under a version 2 rule file: the adapter's tier combined with the
 * file's judgement, the stricter winning (block > require > allow). A call the file puts
 * before a person needs the adapter's evidence to open a gate on; a call allowed by the
 * adapter without evidence is then blocked, failing closed. Version 1 files (and none)
 * leave the plan as it is: the gate applies them when it opens.
 */
export async function planWithPolicy(
  deps: PolicyActivityDeps,
  input: PlanToolCallInput,
  def: DomainTool,
  plan: CallPlan,
): Promise<PlannedCall> {
  if (!deps.policy?.v2 || plan.policy === 'block')
    return plan.policy === 'require_approval' ? { ...plan, ...defaultNotify(deps) } : plan;
  const evidence = plan.evidence;
  const judged = await evaluatePolicy(deps, {
    request_id: `${input.session_id}-${input.call_id ?? def.name}`,
    action: def.action,
    target: evidence?.target ?? `${input.domain}/${input.session_id}`,
    summary: evidence?.summary ?? def.name,
    args: plan.input,
    blast_radius: evidence?.blast_radius ?? {},
    preconditions: evidence?.preconditions ?? {},
    agent: input.agent_id ?? '',
    tenant: input.tenant ?? 'default',
    domain:
      plan.policy === 'allow' ? { tier: 'allow' } : { tier: 'require', approvals_required: plan.approvals_required },
    via: 'run',
  });
  const rule = judged.rule_id ?? 'defaults';
  if (judged.effect === 'block')
    return { policy: 'block', reason: `${judged.reason ?? 'the rule file blocks this call'} (rule ${rule})`, judged };
  if (judged.effect === 'allow') return { policy: 'allow', input: plan.input, judged };
  if ('problem' in judged.review) return { policy: 'block', reason: judged.review.problem, judged };
  if (!evidence)
    return {
      policy: 'block',
      reason: `rule ${rule} asks a person to approve ${def.name}, but the ${input.domain} domain gives no evidence to approve it on; nothing ran`,
      judged,
    };
  return {
    policy: 'require_approval',
    input: plan.input,
    approvals_required: judged.review.approvals_required,
    evidence,
    judged,
    ...defaultNotify(deps),
  };
}
