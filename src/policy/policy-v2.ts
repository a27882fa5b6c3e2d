import { z } from 'zod';
import { sharedSchema } from '../common/shared-schema';
import { ActionPattern, RoleName } from './names';

// Version 2 of the rule file (GATE_POLICY_FILE): which calls need a person at all, not only
// who decides them. Pure schemas; src/policy/compile.ts turns a validated file into rules
// that evaluate, src/policy/lint.ts finds what the schema cannot.

/** What a matching rule does: let the call run, ask a person, or refuse it. */
export const PolicyEffect = sharedSchema('policy-v2.PolicyEffect', () => z.enum(['allow', 'require', 'block']));
export type PolicyEffect = z.infer<typeof PolicyEffect>;

/** `enforce` decides; `warn` and `audit` are shadow modes: evaluated and recorded, never enforced. */
export const PolicyMode = sharedSchema('policy-v2.PolicyMode', () => z.enum(['enforce', 'warn', 'audit']));
export type PolicyMode = z.infer<typeof PolicyMode>;

/** A duration as the file writes it: `90s`, `30m`, `8h`, `2d`, or a number of seconds. */
export const FileDuration = sharedSchema('policy-v2.FileDuration', () =>
  z.union([
    z.int().min(1).max(1_000_000_000),
    z.string().regex(/^\d{1,9}[smhd]?$/, 'a duration such as 90s, 30m, 8h, 2d or a number of seconds'),
  ]),
);
export type FileDuration = z.infer<typeof FileDuration>;

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Seconds of a FileDuration that passed the schema. */
export function durationSeconds(d: FileDuration): number {
  if (typeof d === 'number') return d;
  const m = /^(\d+)([smhd]?)$/.exec(d)!;
  return Number(m[1]) * UNITS[m[2] || 's']!;
}

/** A notification target: `slack:#channel`, `slack:@member`, `email:address`, `teams:<name>`. */
export const NotifyTarget = sharedSchema('policy-v2.NotifyTarget', () =>
  z
    .string()
    .max(320)
    .regex(
      /^(slack:[#@][A-Za-z0-9._-]{1,80}|email:[^\s@]{1,64}@[^\s@]{1,255}|teams:[A-Za-z0-9._-]{1,80})$/,
      'a target is slack:#channel, slack:@member, email:address or teams:<name>',
    ),
);

/** One level of an escalation chain, counted from the request's creation. */
export const EscalationLevel = sharedSchema('policy-v2.EscalationLevel', () =>
  z
    .object({
      after: FileDuration,
      notify: z.array(NotifyTarget).max(20).optional(),
      /** Roles added to those that may decide from this level on. */
      roles: z.array(RoleName).max(50).optional(),
    })
    .strict(),
);

/** A named escalation chain (carried into the evidence; delivered elsewhere). */
export const EscalationChain = sharedSchema('policy-v2.EscalationChain', () =>
  z
    .object({
      levels: z.array(EscalationLevel).min(1).max(10),
      /** How many times the levels run again after the last. */
      repeat: z.int().min(0).max(10).default(0),
    })
    .strict(),
);
export type EscalationChain = z.infer<typeof EscalationChain>;

/** Standing grants a reviewer may give under a rule: how long and how many uses at most. */
export const GrantBounds = sharedSchema('policy-v2.GrantBounds', () =>
  z
    .object({
      max_for: FileDuration,
      max_uses: z.int().min(1).max(10_000),
    })
    .strict(),
);

/** A rule id: appears in the evidence, the audit trail, metrics and `explain`. */
export const RuleId = sharedSchema('policy-v2.RuleId', () =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(
      /^[a-z0-9][a-z0-9_.-]*$/,
      'a rule id is lower-case letters, digits and . _ -, starting with a letter or digit',
    ),
);

/** One rule of a version 2 file. */
export const RuleV2 = sharedSchema('policy-v2.RuleV2', () =>
  z
    .object({
      /** Required and unique. */
      id: RuleId,
      /** Glob over the action, as in version 1. */
      action: ActionPattern,
      /** A CEL condition over the request; absent: the action alone decides. */
      when: z.string().min(1).max(4000).optional(),
      effect: PolicyEffect.default('require'),
      /** Shown to the agent (and the model) for block, to reviewers for require. */
      reason: z.string().min(1).max(500).optional(),
      mode: PolicyMode.default('enforce'),
      /** Roles that may decide (require); absent: any reviewer. */
      roles: z.array(RoleName).min(1).max(50).optional(),
      min_approvals: z.int().min(1).max(10).default(1),
      /** Upper bound of the request's time to live; a request may ask for less. */
      ttl: FileDuration.optional(),
      /** A chain of `escalations:` by name. */
      escalation: z.string().min(1).max(64).optional(),
      notify: z.array(NotifyTarget).max(20).optional(),
      grants: GrantBounds.optional(),
    })
    .strict(),
);
export type RuleV2 = z.infer<typeof RuleV2>;

/** A request as the file's `tests:` and `gate policy explain` give it. */
export const PolicyTestRequest = sharedSchema('policy-v2.PolicyTestRequest', () =>
  z
    .object({
      action: z.string().min(1).max(100),
      target: z.string().max(500).default(''),
      summary: z.string().max(500).default(''),
      args: z.record(z.string(), z.unknown()).default({}),
      blast_radius: z.record(z.string(), z.unknown()).default({}),
      preconditions: z.record(z.string(), z.unknown()).default({}),
      agent: z.string().max(200).default(''),
      agent_id: z.string().max(200).optional(),
      tenant: z.string().max(63).default('default'),
      approvals_required: z.int().min(1).max(10).optional(),
      reviewer_roles: z.array(RoleName).min(1).max(50).optional(),
    })
    .passthrough(),
);
export type PolicyTestRequest = z.infer<typeof PolicyTestRequest>;

/** One case of the file's `tests:`. */
export const PolicyTestCase = sharedSchema('policy-v2.PolicyTestCase', () =>
  z
    .object({
      name: z.string().min(1).max(200),
      request: PolicyTestRequest,
      expect: z
        .object({
          effect: PolicyEffect,
          /** The deciding rule; null: the defaults decided. */
          rule_id: RuleId.nullable().optional(),
        })
        .strict(),
    })
    .strict(),
);
export type PolicyTestCase = z.infer<typeof PolicyTestCase>;

/** The whole version 2 file. */
export const PolicyFileV2 = sharedSchema('policy-v2.PolicyFileV2', () =>
  z
    .object({
      version: z.literal(2),
      defaults: z
        .object({ effect: PolicyEffect.default('require') })
        .strict()
        .default({ effect: 'require' }),
      escalations: z.record(z.string().min(1).max(64), EscalationChain).default({}),
      rules: z.array(RuleV2).max(1000),
      tests: z.array(PolicyTestCase).max(1000).default([]),
    })
    .strict(),
);
export type PolicyFileV2 = z.infer<typeof PolicyFileV2>;
