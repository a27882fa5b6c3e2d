import type { DecisionMessage } from './decision';
import type { Refusal } from './failure-types';
import type { AuditSpec, GateState, IssuedGrant, VoteGrant } from './gate-types';
import { digest } from './hashing';
import { durationSeconds } from '../policy/policy-v2';
import type { PolicyDecision } from '../policy/policy-evidence';

// What a version 2 rule file changes in a gate's life: decided at creation by a rule or a
// standing grant, and standing grants given by an approving quorum. Pure, like gate-state.

/** A vote's grant with its duration in seconds. */
export function voteGrant(g: NonNullable<DecisionMessage['grant']>): VoteGrant {
  return { for_seconds: durationSeconds(g.for), max_uses: g.max_uses, ...(g.when ? { when: g.when } : {}) };
}

/** Why an approving vote may not ask for this standing grant: the rule allows none, or the grant outgrows its bounds. */
export function refuseGrant(s: GateState, g: VoteGrant): Refusal | null {
  const bounds = s.payload.policy?.grants;
  const rule = s.payload.policy?.rule_id ?? 'no rule';
  if (!bounds || s.payload.policy?.effect !== 'require')
    return {
      type: 'InvalidInput',
      message: `the rule that decided this request (${rule}) allows no standing grants`,
      details: [{ path: 'grant', message: 'not allowed under this rule' }],
    };
  if (g.for_seconds > bounds.max_for_seconds)
    return {
      type: 'InvalidInput',
      message: `a grant under rule ${rule} lasts at most ${bounds.max_for_seconds} s, not ${g.for_seconds} s`,
      details: [{ path: 'grant.for', message: `at most ${bounds.max_for_seconds} seconds` }],
    };
  if (g.max_uses > bounds.max_uses)
    return {
      type: 'InvalidInput',
      message: `a grant under rule ${rule} has at most ${bounds.max_uses} uses, not ${g.max_uses}`,
      details: [{ path: 'grant.max_uses', message: `at most ${bounds.max_uses}` }],
    };
  return null;
}

/**
 * The standing grant a quorum gives: only when every approving vote names the same grant.
 * Returns the grant, or why none was given (some vote named none or another), or nothing
 * when no vote asked for one.
 */
export function quorumGrant(s: GateState, now: string): { grant: IssuedGrant } | { refused: string } | undefined {
  const asked = s.votes.map((v) => (v.grant ? digest(v.grant) : null));
  if (asked.every((a) => a === null)) return undefined;
  if (!asked.every((a) => a !== null && a === asked[0]))
    return { refused: 'not every approving vote named the same grant: a grant needs the full quorum' };
  const g = s.votes[0]!.grant!;
  return {
    grant: {
      grant_id: `grt_${digest(['approval-gate/grant', s.request_id, ...s.votes.map((v) => v.decision_id)]).slice(0, 24)}`,
      request_id: s.request_id,
      rule_id: s.payload.policy?.rule_id ?? '',
      policy_sha256: s.payload.policy?.policy_sha256 ?? '',
      agent_id: s.payload.agent_id,
      action: s.payload.action,
      target: s.payload.target,
      reviewers: s.votes.map((v) => v.reviewer_id),
      ...g,
      issued_at: now,
      expires_at: new Date(Date.parse(now) + g.for_seconds * 1000).toISOString(),
    },
  };
}

/**
 * Decides a new gate by its rule file (allow, block) or a standing grant, before any
 * person: `approved` or `denied`, with the rule or grant as the decider and an event by
 * the system. Returns the events to append.
 */
export function applyPolicyDecision(s: GateState, p: PolicyDecision, now: string): AuditSpec[] {
  const actor = { actor_type: 'system' as const, actor_id: p.decided_by };
  const data = {
    decided_by: p.decided_by,
    ...(p.rule_id !== undefined ? { rule_id: p.rule_id } : {}),
    ...(p.grant_id ? { grant_id: p.grant_id } : {}),
  };
  s.decision = {
    decision: p.decision,
    reviewer_id: p.decided_by,
    ...(p.reason ? { reason: p.reason } : {}),
    at: now,
  };
  s.updated_at = now;
  if (p.decision === 'reject') {
    s.status = 'denied';
    s.status_reason = p.reason ?? `blocked by ${p.decided_by}`;
    return [{ ...actor, event_type: 'approval.denied', note: s.status_reason, data }];
  }
  s.status = 'approved';
  s.status_reason = p.reason ?? `approved by ${p.decided_by}`;
  return [
    {
      ...actor,
      event_type: 'approval.approved',
      note: s.status_reason,
      data: { ...data, reviewers: [], args_sha256: s.final_args_sha256 },
    },
  ];
}
