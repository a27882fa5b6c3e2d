import { z } from 'zod';
import { sharedSchema } from './shared-schema';
import { FileDuration } from '../policy/policy-v2';
import type { IssuedGrant } from './grant';

/** The three decision words; anything else ("Approve", "yes") is refused, never guessed. */
export const DecisionWord = sharedSchema('decision.DecisionWord', () => z.enum(['approve', 'reject', 'modify']));
export type DecisionWord = z.infer<typeof DecisionWord>;

/**
 * A standing grant an approving vote asks for: later requests of the same tenant, agent,
 * action and target (and `when`, CEL, if given) are approved at creation, for `for` and at
 * most `max_uses` times. Only under a rule with `grants`, within its bounds, and only when
 * every approving vote of the quorum names the same grant.
 */
export const GrantRequest = sharedSchema('decision.GrantRequest', () =>
  z
    .object({
      /** How long the grant lasts: `30m`, `4h` or seconds; at most the rule's `max_for`. */
      for: FileDuration,
      /** Requests it may approve; at most the rule's `max_uses`. */
      max_uses: z.int().min(1).max(10_000),
      /** A CEL condition a later request must also meet (as a rule's `when`). */
      when: z.string().min(1).max(4000).optional(),
    })
    .strict(),
);
export type GrantRequest = z.infer<typeof GrantRequest>;

/** Body of `POST /v1/approvals/{id}/decision`. */
export const DecisionBody = sharedSchema('decision.DecisionBody', () =>
  z
    .object({
      /** approve, reject or modify. */
      decision: DecisionWord,
      /** The payload digest the reviewer saw; a decision on another payload is refused. */
      payload_sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be the 64-hex payload_sha256 of the request'),
      /** Why: required to reject, sent back to the model. */
      reason: z.string().trim().min(1).max(2000).optional(),
      /** Free-text justification for the audit trail. */
      note: z.string().max(2000).optional(),
      /** Replacement args (merged over the requested ones) for modify. */
      args: z.record(z.string(), z.unknown()).optional(),
      /** The args digest the reviewer saw (`final_args_sha256`); required once a reviewer modified the args. */
      args_sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/, 'must be the 64-hex final_args_sha256 of the request')
        .optional(),
      /** Caller-chosen id so a retried decision is applied once; the server makes one when absent. */
      decision_id: z.string().min(1).max(128).optional(),
      /** A standing grant to give with this approval (see GrantRequest). */
      grant: GrantRequest.optional(),
    })
    .strict()
    .superRefine((d, ctx) => {
      if (d.grant && d.decision !== 'approve')
        ctx.addIssue({ code: 'custom', path: ['grant'], message: 'only an approval can give a standing grant' });
      if (d.decision === 'reject' && !d.reason)
        ctx.addIssue({ code: 'custom', path: ['reason'], message: 'a rejection needs a reason' });
      if (d.decision === 'modify' && (!d.args || Object.keys(d.args).length === 0))
        ctx.addIssue({ code: 'custom', path: ['args'], message: 'modify needs the new args' });
      if (d.decision !== 'modify' && d.args)
        ctx.addIssue({ code: 'custom', path: ['args'], message: 'args are only for modify' });
    }),
);
export type DecisionBody = z.infer<typeof DecisionBody>;

/**
 * How a reviewer proved who they are, as the API's authentication saw it (never what a
 * caller says): an API key by its id, or an OpenID Connect ID token by its issuer and
 * subject. Recorded with the decision in the audit trail, and so in evidence bundles.
 */
export const ReviewerAuth = sharedSchema('decision.ReviewerAuth', () =>
  z.discriminatedUnion('method', [
    z
      .object({
        method: z.literal('api_key'),
        /** The key's id (`gate keys create --id`). */
        key_id: z.string().min(1).max(200),
      })
      .strict(),
    z
      .object({
        method: z.literal('oidc'),
        /** The ID token's `iss`, which the API checked against GATE_OIDC_ISSUER. */
        issuer: z.string().min(1).max(500),
        /** The ID token's `sub`: also the reviewer id. */
        subject: z.string().min(1).max(200),
      })
      .strict(),
  ]),
);
export type ReviewerAuth = z.infer<typeof ReviewerAuth>;

/** A decision as the gate receives it, by signal or update: always with its id and reviewer. */
export const DecisionMessage = sharedSchema('decision.DecisionMessage', () =>
  z
    .object({
      /** The request decided on; a message naming another request is refused. */
      request_id: z.string().min(1).max(200).optional(),
      decision_id: z.string().min(1).max(128),
      reviewer_id: z.string().min(1).max(200),
      /** The reviewer's roles as the API authenticated them (key or ID token); checked against the request's rule. */
      reviewer_roles: z.array(z.string().min(1).max(64)).max(50).optional(),
      /** How the API authenticated the reviewer; absent for decisions sent by signal from other services. */
      reviewer_auth: ReviewerAuth.optional(),
      decision: DecisionWord,
      payload_sha256: z.string(),
      reason: z.string().max(2000).optional(),
      note: z.string().max(2000).optional(),
      args: z.record(z.string(), z.unknown()).optional(),
      args_sha256: z.string().optional(),
      grant: GrantRequest.optional(),
    })
    // Unknown fields are dropped, not refused: an API of a later release may send fields a
    // worker of this release does not know yet (docs/upgrading.md).
    .strip()
    .superRefine((d, ctx) => {
      if (d.grant && d.decision !== 'approve')
        ctx.addIssue({ code: 'custom', path: ['grant'], message: 'only an approval can give a standing grant' });
      if (d.decision === 'reject' && !d.reason?.trim())
        ctx.addIssue({ code: 'custom', path: ['reason'], message: 'a rejection needs a reason' });
      if (d.decision === 'modify' && (!d.args || Object.keys(d.args).length === 0))
        ctx.addIssue({ code: 'custom', path: ['args'], message: 'modify needs the new args' });
      if (d.decision !== 'modify' && d.args)
        ctx.addIssue({ code: 'custom', path: ['args'], message: 'args are only for modify' });
    }),
);
export type DecisionMessage = z.infer<typeof DecisionMessage>;

/** What a decision did; returned by the update and remembered per decision id. */
export interface DecisionResult {
  request_id: string;
  decision_id: string;
  decision: DecisionWord;
  reviewer_id: string;
  status: string;
  approvals: number;
  approvals_required: number;
  /** False when this decision id had already been applied (a retry or a signal+update pair). */
  applied: boolean;
  /** Never set on an applied decision; `AcceptedDecision` has it. */
  pending?: never;
  /** The standing grant this decision's quorum gave (the API stores it). */
  grant?: IssuedGrant;
}

/**
 * A valid decision the gate could not apply within the caller's wait (its workers are
 * behind, or away): sent durably as a `decide` signal with its `decision_id`, which the gate
 * applies once, or refuses and audits as `decision.refused`, when a worker gets to it. The
 * API answers it with 202 `decision_accepted`.
 */
export interface AcceptedDecision {
  request_id: string;
  decision_id: string;
  decision: DecisionWord;
  reviewer_id: string;
  /** The request's status when the decision was sent: still `requested` until the gate applies it. */
  status: string;
  pending: true;
  applied: false;
  code: 'decision_accepted';
  /** What happened and what to do next, for people and logs. */
  message: string;
}

/** What deciding answers: the applied result, or an accepted decision the gate will apply later. */
export type DecisionOutcome = DecisionResult | AcceptedDecision;

/** Body of `POST /v1/approvals/{id}/consume` as the gate receives it. */
export interface ConsumeMessage {
  consumer_id: string;
}

/** Cancel message: from the requesting agent, or from the run that owns the gate. */
export interface CancelMessage {
  actor_id: string;
  actor_type: 'agent' | 'system';
  reason?: string;
}
