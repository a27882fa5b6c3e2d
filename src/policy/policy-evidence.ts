import { z } from 'zod';
import { sharedSchema } from '../common/shared-schema';
import { RoleName } from './reviewer-policy';

// What a version 2 rule file's judgement leaves in a gate: the `policy` field of the
// evidence (bound into payload_sha256), the pre-decision of allow/block/grant and the
// shadow rules' results. No CEL here: the workflow bundle imports this module.

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** The escalation chain a rule names, copied into the evidence so a later file change leaves pending gates alone. */
export const EvidenceEscalation = sharedSchema('policy-evidence.EvidenceEscalation', () =>
  z
    .object({
      name: z.string().min(1).max(64),
      levels: z
        .array(
          z
            .object({
              after_seconds: z.int().min(1),
              notify: z.array(z.string().max(320)).max(20).optional(),
              roles: z.array(RoleName).max(50).optional(),
            })
            .strict(),
        )
        .max(10),
      repeat: z.int().min(0).max(10),
    })
    .strict(),
);

/** The `policy` field of the evidence: the rule that decided, why, and by which file. */
export const PolicyEvidence = sharedSchema('policy-evidence.PolicyEvidence', () =>
  z
    .object({
      /** The deciding rule's id; null when no enforced rule matched and `defaults.effect` decided. */
      rule_id: z.string().max(64).nullable(),
      effect: z.enum(['allow', 'require', 'block']),
      /** The rule's reason (shown to the agent for block). */
      reason: z.string().max(500).optional(),
      /** SHA-256 of the rule file's bytes. */
      policy_sha256: Hex64,
      /** The values the deciding condition read (`args.amount`: 4000); long values by size and digest. */
      values: z.record(z.string(), z.unknown()),
      /** The condition could not be evaluated: it counted as matched (require, block), failing closed. */
      error: z.string().max(1000).optional(),
      /** Upper bound of the request's time to live, from the rule's `ttl`. */
      ttl_seconds: z.int().min(1).optional(),
      /** Standing grants a reviewer may give under this rule. */
      grants: z
        .object({ max_for_seconds: z.int().min(1), max_uses: z.int().min(1) })
        .strict()
        .optional(),
      escalation: EvidenceEscalation.optional(),
      notify: z.array(z.string().max(320)).max(20).optional(),
      /** In an agent run: the domain adapter's own tier, combined with the rule's (the stricter won). */
      domain_tier: z.enum(['allow', 'require', 'block']).optional(),
    })
    .strict(),
);
export type PolicyEvidence = z.infer<typeof PolicyEvidence>;

/**
 * A gate decided at creation (GateInput.policy_decision): by a rule's allow or block
 * (`policy:<rule id>`, `policy:defaults`) or by a standing grant (`grant:<grant id>`).
 */
export interface PolicyDecision {
  decision: 'approve' | 'reject';
  /** `policy:<rule id>` or `grant:<grant id>`: who the gate names as its decider. */
  decided_by: string;
  reason?: string;
  rule_id?: string | null;
  grant_id?: string;
}

/** What a `warn` or `audit` rule would have done: recorded, counted, never enforced. */
export interface ShadowResult {
  rule_id: string;
  mode: 'warn' | 'audit';
  effect: 'allow' | 'require' | 'block';
  /** What the caller is told for `warn` (and the audit note). */
  message: string;
  values: Record<string, unknown>;
  error?: string;
}
