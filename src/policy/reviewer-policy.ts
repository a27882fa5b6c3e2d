import { z } from 'zod';
import { brandErrorClass, ConfigurationError } from '../common/errors';
import { sharedSchema } from '../common/shared-schema';
import type { PolicyFileV2 } from './policy-v2';
import { ActionPattern, RoleName } from './names';

export { ActionPattern, RoleName } from './names';

// Who may decide what: the server-side rule file (GATE_POLICY_FILE), matched by action.
// Pure: the loader in src/policy reads and parses the file; this module validates and matches.

/** One rule: the actions it covers, who may decide them, and how many must approve. */
export const PolicyRule = sharedSchema('reviewer-policy.PolicyRule', () =>
  z
    .object({
      /** Which actions: `refund.*` covers `refund.create` and `refund.batch.create`. */
      action: ActionPattern,
      /** Roles that may decide; a reviewer needs at least one of them. */
      roles: z.array(RoleName).min(1).max(50),
      /** Distinct eligible reviewers who must approve; the request may ask for more, never fewer. */
      min_approvals: z.int().min(1).max(10).default(1),
    })
    .strict(),
);
export type PolicyRule = z.infer<typeof PolicyRule>;

/** The rule file. Rules are tried in file order; the first whose pattern matches applies. */
export const PolicyFile = sharedSchema('reviewer-policy.PolicyFile', () =>
  z
    .object({
      /** Format version 1 (version 2 files are read by src/policy/lint.ts). */
      version: z.literal(1).default(1),
      rules: z.array(PolicyRule).max(1000),
    })
    .strict(),
);
export type PolicyFile = z.infer<typeof PolicyFile>;

/** A validated rule file and the SHA-256 of its bytes, as loaded at start. */
export interface ReviewerPolicy {
  /** Version 1 rules (empty for a version 2 file, whose rules are in `v2`). */
  rules: PolicyRule[];
  /** A version 2 file: which calls need a person at all (src/policy/judge.ts). */
  v2?: PolicyFileV2;
  /** SHA-256 (hex) of the file as read: which rule file a gate was judged by. */
  sha256: string;
  /** Where it was read from, for messages. */
  source: string;
}

/**
 * Who may decide one request, fixed when the request is created and bound into its
 * evidence (so into payload_sha256). Absent roles: any reviewer key may decide.
 */
export const ReviewerRequirement = sharedSchema('reviewer-policy.ReviewerRequirement', () =>
  z
    .object({
      /** The pattern of the rule that applied; null when no rule matched (or no rule file). */
      rule: z.string().max(100).nullable(),
      /** Roles that may decide (one of them suffices); empty: any reviewer. */
      roles: z.array(RoleName).max(50),
      /** Distinct eligible approvals needed. */
      approvals_required: z.int().min(1).max(10),
      /** SHA-256 of the rule file; null when the server runs without one. */
      policy_sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .nullable(),
    })
    .strict(),
);
export type ReviewerRequirement = z.infer<typeof ReviewerRequirement>;

/** Thrown by `validatePolicy` with every problem, one per line, each naming its place in the file. */
export class PolicyFileError extends ConfigurationError {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`reviewer policy ${source} is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}
brandErrorClass(PolicyFileError, 'PolicyFileError');

/** Validates a parsed rule file. Throws PolicyFileError naming each bad field (`rules[2].roles[0]: ...`). */
export function validatePolicy(parsed: unknown, sha256: string, source: string): ReviewerPolicy {
  const r = PolicyFile.safeParse(parsed);
  if (!r.success) {
    throw new PolicyFileError(
      source,
      r.error.issues.map((i) => `${pathText(i.path)}: ${i.message}`),
    );
  }
  const problems: string[] = [];
  r.data.rules.forEach((rule, i) => {
    if (new Set(rule.roles).size !== rule.roles.length) problems.push(`rules[${i}].roles: a role is listed twice`);
    const earlier = r.data.rules.findIndex((o, j) => j < i && o.action === rule.action);
    if (earlier >= 0)
      problems.push(`rules[${i}].action: "${rule.action}" repeats rules[${earlier}], so it could never apply`);
  });
  if (problems.length > 0) throw new PolicyFileError(source, problems);
  return { rules: r.data.rules, sha256, source };
}

/** A zod issue path as the file reads it: `rules[2].roles[0]`. */
export function pathText(path: PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

/** True when `action` matches `pattern`; `*` matches any run of characters, dots included. */
export function actionMatches(pattern: string, action: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`);
  return re.test(action);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The first rule (in file order) whose pattern matches the action, or undefined. */
export function ruleFor(policy: ReviewerPolicy | undefined, action: string): PolicyRule | undefined {
  return policy?.rules.find((r) => actionMatches(r.action, action));
}

/** What the request itself asks for; it may only tighten the matching rule. */
export interface RequestedReview {
  approvals_required?: number;
  reviewer_roles?: string[];
}

/**
 * Who may decide a new request: the matching rule, tightened by the request. Approvals
 * are the larger of the two; roles are the rule's, narrowed to the request's when it names
 * some. Returns a problem (for a 422) when the request names roles the rule does not
 * allow, so an agent cannot widen who decides.
 */
export function resolveRequirement(
  policy: ReviewerPolicy | undefined,
  action: string,
  asked: RequestedReview,
): { requirement: ReviewerRequirement } | { problem: string } {
  const rule = ruleFor(policy, action);
  const askedRoles = asked.reviewer_roles ? [...new Set(asked.reviewer_roles)].sort() : undefined;
  let roles = rule ? [...rule.roles].sort() : (askedRoles ?? []);
  if (rule && askedRoles) {
    const outside = askedRoles.filter((r) => !rule.roles.includes(r));
    if (outside.length > 0) {
      return {
        problem: `reviewer_roles ${outside.join(', ')} are not allowed to decide ${action} (rule "${rule.action}" allows ${rule.roles.join(', ')}); a request may only narrow the roles`,
      };
    }
    roles = askedRoles;
  }
  const approvals = Math.max(asked.approvals_required ?? 1, rule?.min_approvals ?? 1);
  return {
    requirement: {
      rule: rule?.action ?? null,
      roles,
      approvals_required: approvals,
      policy_sha256: policy?.sha256 ?? null,
    },
  };
}

/** True when a reviewer with these roles may decide under the requirement (no roles named: anyone). */
export function isEligible(
  requirement: ReviewerRequirement | undefined,
  reviewerRoles: readonly string[] = [],
): boolean {
  if (!requirement || requirement.roles.length === 0) return true;
  return requirement.roles.some((r) => reviewerRoles.includes(r));
}

/** What a new gate records about who decides it: evidence (when anything limits it) and the approvals needed. */
export interface RecordedReview {
  /** Bound into the evidence as `reviewer_policy`; absent when neither a rule file nor the request names roles. */
  reviewer_policy?: ReviewerRequirement;
  /** Distinct eligible approvals the gate needs: the larger of the request's and the rule's. */
  approvals_required: number;
}

/**
 * The one rule every creator applies (the API's create, an agent run's tool gate, a
 * workflow's `requireApproval`): the matching rule tightened by the request, recorded in
 * the evidence only when something limits who decides, so payloads (and their hashes)
 * stay as before otherwise. A problem when the request would widen the roles.
 */
export function reviewFor(
  policy: ReviewerPolicy | undefined,
  action: string,
  asked: RequestedReview,
): RecordedReview | { problem: string } {
  const r = resolveRequirement(policy, action, asked);
  if ('problem' in r) return r;
  const limited = policy !== undefined || asked.reviewer_roles !== undefined;
  return {
    ...(limited ? { reviewer_policy: r.requirement } : {}),
    approvals_required: r.requirement.approvals_required,
  };
}
