import type { Judgement } from './judge';
import type { ReviewerPolicy } from './reviewer-policy';

/** What `explain` answers: the outcome, each rule in file order with what matched and the values, and the file's hash. */
export function explanation(j: Judgement, policy: ReviewerPolicy | undefined): Record<string, unknown> {
  return {
    outcome: {
      effect: j.effect,
      rule_id: j.rule_id,
      decided_by: j.effect === 'require' ? null : j.decided_by,
      ...(j.reason ? { reason: j.reason } : {}),
      ...('problem' in j.review
        ? { problem: j.review.problem }
        : {
            approvals_required: j.review.approvals_required,
            roles: j.review.reviewer_policy?.roles ?? [],
          }),
      ...(j.grants ? { grants: j.grants } : {}),
      ...(j.ttl_seconds ? { ttl_seconds: j.ttl_seconds } : {}),
    },
    policy_sha256: j.policy_sha256,
    version: j.version,
    source: policy?.source ?? null,
    defaults: policy?.v2?.defaults ?? null,
    rules: j.trace ?? [],
    shadow: j.shadow,
  };
}
