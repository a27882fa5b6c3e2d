import { applyStandingGrant } from '../../client/grants';
import { judge, withDomainTier, type Judgement, type PolicyRequest } from '../../policy/judge';
import type { ReviewerPolicy } from '../../policy/reviewer-policy';
import type { PolicyDecision } from '../../policy/policy-evidence';
import type { AuditStore } from '../../store/audit-store';
import type { GrantStore } from '../../store/grant-store';
import { recordEvaluation } from '../../store/policy-events';
import type { EvaluatePolicyInput, EvaluatePolicyResult } from './contracts';

export interface PolicyActivityDeps {
  policy?: ReviewerPolicy;
  grants?: GrantStore;
  audit?: AuditStore;
  /** The worker's GATE_NOTIFY: who is told of a gate whose request and rule name nobody. */
  notify?: readonly string[];
}

/** The worker's GATE_NOTIFY as an activity's answer carries it (none: the field is left out). */
export function defaultNotify(deps: PolicyActivityDeps): { default_notify?: string[] } {
  return deps.notify?.length ? { default_notify: [...deps.notify] } : {};
}

/**
 * Judges a request a workflow is about to put through a gate (`requireApproval`, an agent
 * run's tool call) by the worker's rule file: one evaluation for every entry point, in an
 * activity, so the answer is in the caller's history and replays unchanged. A standing
 * grant may answer a `require`. Records the judgement (`policy.evaluated`) for replay.
 */
export async function evaluatePolicy(
  deps: PolicyActivityDeps,
  input: EvaluatePolicyInput,
): Promise<EvaluatePolicyResult> {
  const { request_id, domain, via, ...request } = input;
  let j: Judgement = judge(deps.policy, request as PolicyRequest);
  if (domain) j = withDomainTier(j, domain);
  let decision: PolicyDecision | undefined =
    j.effect === 'require'
      ? undefined
      : {
          decision: j.effect === 'allow' ? ('approve' as const) : ('reject' as const),
          decided_by: j.decided_by,
          rule_id: j.rule_id,
          ...(j.reason ? { reason: j.reason } : {}),
        };
  if (!decision && deps.grants && !('problem' in j.review))
    decision = await applyStandingGrant(deps.grants, deps.audit, {
      requestId: request_id,
      tenant: request.tenant,
      judgement: j,
      policyRequest: request,
    });
  if (deps.policy && deps.audit)
    await recordEvaluation(deps.audit, request_id, request, j, { decided_by: decision?.decided_by, via }).catch(
      () => undefined, // a lost record costs a replay one request, never the call
    );
  return {
    effect: j.effect,
    rule_id: j.rule_id,
    decided_by: j.decided_by,
    ...(j.reason ? { reason: j.reason } : {}),
    review: j.review,
    ...(j.evidence ? { evidence: j.evidence } : {}),
    shadow: j.shadow,
    ...(j.ttl_seconds ? { ttl_seconds: j.ttl_seconds } : {}),
    ...(decision ? { decision } : {}),
    ...defaultNotify(deps),
    version: j.version,
  };
}
