import { runCondition, valuesOf, type CelActivation } from './cel';
import { compilePolicy, type CompiledPolicy, type CompiledRule } from './compile';
import type { PolicyEvidence, ShadowResult } from './policy-evidence';
import type { PolicyEffect, PolicyMode } from './policy-v2';
import { reviewFor, type RecordedReview, type ReviewerPolicy } from './reviewer-policy';

/** The request as the rule file judges it: the evidence fields, the agent and its tenant. */
export interface PolicyRequest {
  action: string;
  target: string;
  summary: string;
  args: Record<string, unknown>;
  blast_radius: Record<string, unknown>;
  preconditions: Record<string, unknown>;
  agent: string;
  tenant: string;
  /** What the request itself asks for: it may only make the outcome stricter. */
  approvals_required?: number;
  reviewer_roles?: string[];
}

/** One rule as `explain` shows it. */
export interface RuleTrace {
  rule_id: string;
  index: number;
  mode: PolicyMode;
  effect: PolicyEffect;
  action: string;
  action_matched: boolean;
  when?: string;
  /** Whether the condition held; absent when the action did not match or there is no condition. */
  when_matched?: boolean;
  values?: Record<string, unknown>;
  error?: string;
  /** The rule counts as matched (its action matched and its condition held, or failed closed). */
  matched: boolean;
  /** This rule decided the outcome. */
  decided: boolean;
}

/** What the rule file says about one request. */
export interface Judgement {
  effect: PolicyEffect;
  /** The deciding rule; null when the defaults (or no version 2 file) decided. */
  rule_id: string | null;
  /** `policy:<rule id>` or `policy:defaults`, for a gate decided at creation. */
  decided_by: string;
  reason?: string;
  /** For a version 2 file: the evidence's `policy` field. */
  evidence?: PolicyEvidence;
  /** Who decides a `require` (the rule tightened by the request), or why the request may not be made. */
  review: RecordedReview | { problem: string };
  shadow: ShadowResult[];
  /** Standing grants the deciding rule allows. */
  grants?: { max_for_seconds: number; max_uses: number };
  ttl_seconds?: number;
  policy_sha256: string | null;
  version: 1 | 2 | null;
  /** Every rule in file order, when asked for (`explain`). */
  trace?: RuleTrace[];
}

/** The activation a condition reads. */
export function activationOf(r: PolicyRequest): CelActivation {
  return {
    action: r.action,
    target: r.target,
    summary: r.summary,
    args: r.args,
    blast_radius: r.blast_radius,
    preconditions: r.preconditions,
    agent: r.agent,
    tenant: r.tenant,
  };
}

const STRICTNESS: Record<PolicyEffect, number> = { allow: 0, require: 1, block: 2 };

/** The stricter of two effects: block > require > allow. */
export function stricter(a: PolicyEffect, b: PolicyEffect): PolicyEffect {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

/**
 * Judges one request. Version 1 files (and no file) always `require` and say who decides,
 * as before. Version 2: among enforced rules whose action and condition match, any block
 * wins, else the first match in file order, else `defaults.effect`; warn and audit rules
 * only add to `shadow`. A condition that cannot be evaluated counts as matched for
 * require and block rules and never for allow rules (fail closed). The request may only
 * make it stricter: reviewer roles or more than one approval turn an allow into a require.
 */
export function judge(
  policy: ReviewerPolicy | undefined,
  request: PolicyRequest,
  opts: { trace?: boolean } = {},
): Judgement {
  const asked = { approvals_required: request.approvals_required, reviewer_roles: request.reviewer_roles };
  if (!policy?.v2) {
    return {
      effect: 'require',
      rule_id: null,
      decided_by: 'policy:defaults',
      review: reviewFor(policy, request.action, asked),
      shadow: [],
      policy_sha256: policy?.sha256 ?? null,
      version: policy ? 1 : null,
      ...(opts.trace ? { trace: [] } : {}),
    };
  }
  const compiled = compilePolicy(policy.v2, policy.sha256);
  const activation = activationOf(request);
  const shadow: ShadowResult[] = [];
  const trace: RuleTrace[] | undefined = opts.trace ? [] : undefined;
  let firstMatch: { r: CompiledRule; t: Evaluated } | undefined;
  let firstBlock: { r: CompiledRule; t: Evaluated } | undefined;
  for (const r of compiled.rules) {
    const t = evaluateRule(r, request.action, activation);
    trace?.push(traceOf(r, t));
    if (!t.matched) continue;
    if (r.rule.mode !== 'enforce') {
      shadow.push({
        rule_id: r.rule.id,
        mode: r.rule.mode,
        effect: r.rule.effect,
        message: shadowMessage(r, t),
        values: t.values ?? {},
        ...(t.error ? { error: t.error } : {}),
      });
      continue;
    }
    firstMatch ??= { r, t };
    if (r.rule.effect === 'block') {
      firstBlock ??= { r, t };
    }
  }
  const decider = firstBlock ?? firstMatch;
  if (trace && decider) trace[decider.r.index]!.decided = true;
  return decide(compiled, request, decider, shadow, trace);
}

interface Evaluated {
  actionMatched: boolean;
  matched: boolean;
  whenMatched?: boolean;
  values?: Record<string, unknown>;
  error?: string;
}

function evaluateRule(r: CompiledRule, action: string, a: CelActivation): Evaluated {
  if (!r.pattern.test(action)) return { actionMatched: false, matched: false };
  const c = r.condition;
  if (!c) return { actionMatched: true, matched: true };
  // Fail closed: a condition that cannot say "no" matches a require or block rule, never an allow rule.
  const failClosed = r.rule.effect !== 'allow';
  if (!c.ok) return { actionMatched: true, matched: failClosed, error: `the condition does not compile: ${c.error}` };
  const values = valuesOf(c.paths, a);
  const res = runCondition(c, a);
  if (res.error !== undefined) return { actionMatched: true, matched: failClosed, values, error: res.error };
  return { actionMatched: true, matched: res.matched, whenMatched: res.matched, values };
}

function traceOf(r: CompiledRule, t: Evaluated): RuleTrace {
  return {
    rule_id: r.rule.id,
    index: r.index,
    mode: r.rule.mode,
    effect: r.rule.effect,
    action: r.rule.action,
    action_matched: t.actionMatched,
    ...(r.rule.when !== undefined ? { when: r.rule.when } : {}),
    ...(t.whenMatched !== undefined ? { when_matched: t.whenMatched } : {}),
    ...(t.values ? { values: t.values } : {}),
    ...(t.error ? { error: t.error } : {}),
    matched: t.matched,
    decided: false,
  };
}

function shadowMessage(r: CompiledRule, t: Evaluated): string {
  const verb = { allow: 'allow', require: 'require approval for', block: 'block' }[r.rule.effect];
  const why = r.rule.reason ? `: ${r.rule.reason}` : '';
  const failed = t.error ? ` (its condition failed closed: ${t.error})` : '';
  return `rule ${r.rule.id} (${r.rule.mode}) would ${verb} this request${why}${failed}`;
}

function decide(
  compiled: CompiledPolicy,
  request: PolicyRequest,
  decider: { r: CompiledRule; t: Evaluated } | undefined,
  shadow: ShadowResult[],
  trace: RuleTrace[] | undefined,
): Judgement {
  const rule = decider?.r;
  const ruleEffect: PolicyEffect = rule ? rule.rule.effect : compiled.file.defaults.effect;
  const asksForReviewers =
    request.reviewer_roles !== undefined ||
    (request.approvals_required !== undefined && request.approvals_required > 1);
  const effect = ruleEffect === 'allow' && asksForReviewers ? 'require' : ruleEffect;
  const ruleId = rule?.rule.id ?? null;
  const reason =
    effect !== ruleEffect
      ? `${ruleId ? `rule ${ruleId}` : 'the defaults'} would allow it, but the request asks for reviewers`
      : rule?.rule.reason;
  const review = reviewOf(compiled.sha256, rule, request);
  const evidence: PolicyEvidence = {
    rule_id: ruleId,
    effect,
    ...(reason ? { reason } : {}),
    policy_sha256: compiled.sha256,
    values: decider?.t.values ?? {},
    ...(decider?.t.error ? { error: decider.t.error.slice(0, 1000) } : {}),
    ...(rule?.ttl_seconds ? { ttl_seconds: rule.ttl_seconds } : {}),
    ...(rule?.grants ? { grants: rule.grants } : {}),
    ...(rule?.escalation ? { escalation: rule.escalation } : {}),
    ...(rule?.rule.notify ? { notify: rule.rule.notify } : {}),
  };
  return {
    effect,
    rule_id: ruleId,
    decided_by: `policy:${ruleId ?? 'defaults'}`,
    ...(reason ? { reason } : {}),
    evidence,
    review,
    shadow,
    ...(rule?.grants && effect === 'require' ? { grants: rule.grants } : {}),
    ...(rule?.ttl_seconds ? { ttl_seconds: rule.ttl_seconds } : {}),
    policy_sha256: compiled.sha256,
    version: 2,
    ...(trace ? { trace } : {}),
  };
}

/**
 * Who decides under a version 2 rule: its roles and approvals, tightened by the request as
 * in version 1 (more approvals, narrower roles); roles outside the rule's are a problem.
 */
function reviewOf(
  sha256: string,
  rule: CompiledRule | undefined,
  request: PolicyRequest,
): RecordedReview | { problem: string } {
  const askedRoles = request.reviewer_roles ? [...new Set(request.reviewer_roles)].sort() : undefined;
  const ruleRoles = rule?.rule.roles ? [...rule.rule.roles].sort() : undefined;
  let roles = ruleRoles ?? askedRoles ?? [];
  if (ruleRoles && askedRoles) {
    const outside = askedRoles.filter((r) => !ruleRoles.includes(r));
    if (outside.length > 0)
      return {
        problem: `reviewer_roles ${outside.join(', ')} are not allowed to decide ${request.action} (rule ${rule!.rule.id} allows ${ruleRoles.join(', ')}); a request may only narrow the roles`,
      };
    roles = askedRoles;
  }
  const approvals = Math.max(request.approvals_required ?? 1, rule?.rule.min_approvals ?? 1);
  return {
    reviewer_policy: { rule: rule?.rule.id ?? null, roles, approvals_required: approvals, policy_sha256: sha256 },
    approvals_required: approvals,
  };
}

/**
 * An agent run's call: the domain adapter's own tier combined with the file's judgement,
 * the stricter winning, and the approvals the larger of the two. Recorded in the evidence
 * as `domain_tier`.
 */
export function withDomainTier(
  j: Judgement,
  domain: { tier: PolicyEffect; approvals_required?: number; reason?: string },
): Judgement {
  const effect = stricter(domain.tier, j.effect);
  const review =
    'problem' in j.review
      ? j.review
      : {
          ...j.review,
          approvals_required: Math.max(j.review.approvals_required, domain.approvals_required ?? 1),
          ...(j.review.reviewer_policy
            ? {
                reviewer_policy: {
                  ...j.review.reviewer_policy,
                  approvals_required: Math.max(j.review.approvals_required, domain.approvals_required ?? 1),
                },
              }
            : {}),
        };
  const byDomain = effect !== j.effect && STRICTNESS[domain.tier] > STRICTNESS[j.effect];
  const reason = byDomain && domain.tier === 'block' ? domain.reason : j.reason;
  return {
    ...j,
    effect,
    ...(reason ? { reason } : {}),
    review,
    ...(j.evidence ? { evidence: { ...j.evidence, effect, domain_tier: domain.tier } } : {}),
    ...(effect === 'require' && j.grants ? {} : { grants: undefined }),
  };
}
