import { DecisionMessage, type DecisionResult } from './decision';
import type { Refusal } from './failure-types';
import type { AuditSpec, GateInput, GateState, Modification } from './gate-types';
import { digest } from './hashing';
import { isTerminal, transition, type LifecycleEvent } from './lifecycle';
import { isEligible } from '../policy/reviewer-policy';
import { quorumGrant, refuseGrant, voteGrant } from './gate-policy';

export { applyPolicyDecision } from './gate-policy';

export type {
  AuditSpec,
  EscalationProgress,
  GateCarry,
  GateInput,
  GateState,
  Modification,
  NoticeReceipt,
  ToolExecution,
  Vote,
} from './gate-types';

/** Fresh state for a new gate. */
export function initialGateState(input: GateInput, now: string): GateState {
  return {
    request_id: input.payload.request_id,
    status: 'requested',
    payload: input.payload,
    payload_sha256: input.payload_sha256,
    executor: input.executor,
    approvals_required: input.approvals_required,
    votes: [],
    final_args: input.payload.args,
    final_args_sha256: digest(input.payload.args),
    final_snapshot: input.payload.snapshot,
    created_at: now,
    expires_at: input.payload.expires_at,
    run_id: input.run_id,
    call_id: input.call_id,
    decisions: {},
    decision_digests: {},
    busy: false,
    updated_at: now,
  };
}

/** A decision's identity: ids are the reviewer's own, so one reviewer cannot shadow another's. */
export function decisionKey(d: { reviewer_id?: unknown; decision_id?: unknown }): string {
  return JSON.stringify([String(d.reviewer_id ?? ''), String(d.decision_id ?? '')]);
}

/** Digest of what a decision says, to tell a true retry from a reused id. */
function decisionDigest(d: Partial<DecisionMessage>): string {
  return digest({
    decision: d.decision ?? null,
    payload_sha256: d.payload_sha256 ?? null,
    args_sha256: d.args_sha256 ?? null,
    reason: d.reason ?? null,
    note: d.note ?? null,
    args: d.args ?? null,
    // Only when present: digests of decisions without a grant stay as they were.
    ...(d.grant ? { grant: d.grant } : {}),
  });
}

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * A decision seen before: its first result (a retry, or the same decision by signal and
 * by update), or a refusal when the reviewer reused the id for a different decision.
 * Undefined for a new decision.
 */
export function previousDecision(
  s: GateState,
  d: Partial<DecisionMessage>,
): { result: DecisionResult } | { refusal: Refusal } | undefined {
  const key = decisionKey(d);
  if (!own(s.decisions, key)) return undefined;
  if (s.decision_digests[key] !== decisionDigest(d)) {
    return {
      refusal: {
        type: 'DecisionIdReused',
        message: `decision_id ${String(d.decision_id)} was already used by ${String(d.reviewer_id)} for another decision; use a new id`,
      },
    };
  }
  return { result: s.decisions[key]! };
}

/** True while this very decision (same reviewer, id and content) is being applied. */
export function isInFlight(s: GateState, d: Partial<DecisionMessage>): boolean {
  return s.busy && s.busy_key === decisionKey(d);
}

/**
 * Why a decision may not be applied, or null when it may. Duplicates are not refused
 * here: check `previousDecision` and `isInFlight` first. Pure and synchronous, so update
 * validators use it.
 */
export function refuseDecision(s: GateState, raw: unknown): Refusal | null {
  const parsed = DecisionMessage.safeParse(raw);
  if (!parsed.success) {
    return {
      type: 'InvalidInput',
      message: 'malformed decision',
      details: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    };
  }
  const d = parsed.data;
  if (d.request_id !== undefined && d.request_id !== s.request_id) {
    return { type: 'InvalidInput', message: `decision names request ${d.request_id}, but this is ${s.request_id}` };
  }
  // Roles first: a reviewer who may not decide learns what is needed, not the request's state.
  const ineligible = refuseIneligible(s, d);
  if (ineligible) return ineligible;
  const t = transition(s.status, d.decision as LifecycleEvent);
  if (!t.ok) return t.refusal;
  if (d.payload_sha256 !== s.payload_sha256) {
    return {
      type: 'HashMismatch',
      message: `decision names payload_sha256 ${d.payload_sha256.slice(0, 12)}…, but this request's payload is ${s.payload_sha256.slice(0, 12)}…: reload and review the current payload`,
    };
  }
  // After a modification, approvals bind to the modified args too, not only to the evidence.
  const argsSeen = d.args_sha256;
  if (argsSeen !== undefined && argsSeen !== s.final_args_sha256) {
    return {
      type: 'HashMismatch',
      message: `decision names args_sha256 ${argsSeen.slice(0, 12)}…, but the args to run are ${s.final_args_sha256.slice(0, 12)}…: reload and review them`,
    };
  }
  if (s.modified_by && d.decision !== 'reject' && argsSeen === undefined) {
    return {
      type: 'HashMismatch',
      message: `${s.modified_by} modified the args; review them and name their args_sha256 (${s.final_args_sha256.slice(0, 12)}…) in your decision`,
    };
  }
  if (d.reviewer_id === s.payload.agent_id) {
    return { type: 'SelfApproval', message: `${d.reviewer_id} requested this action and cannot decide on it` };
  }
  if (s.votes.some((v) => v.reviewer_id === d.reviewer_id)) {
    return {
      type: 'DuplicateReviewer',
      message: `${d.reviewer_id} already approved this request; ${s.approvals_required} distinct reviewers are needed`,
    };
  }
  if (s.busy) return { type: 'Busy', message: 'another decision on this request is being applied; retry shortly' };
  return d.grant ? refuseGrant(s, voteGrant(d.grant)) : null;
}

/** 403 with the roles needed when the request's rule names roles and the reviewer holds none of them. */
export function refuseIneligible(
  s: GateState,
  d: Pick<DecisionMessage, 'reviewer_id' | 'reviewer_roles'>,
): Refusal | null {
  const req = decidingRequirement(s);
  if (isEligible(req, d.reviewer_roles) || !req) return null;
  const held = d.reviewer_roles ?? [];
  return {
    type: 'IneligibleReviewer',
    message: `${d.reviewer_id} may not decide ${s.payload.action}: it needs one of the roles ${req.roles.join(', ')}${held.length ? ` (it has ${held.join(', ')})` : ' (it has none)'}`,
    details: {
      roles_needed: req.roles,
      reviewer_roles: held,
      rule: req.rule,
      policy_sha256: req.policy_sha256,
    },
  };
}

/**
 * Who may decide now: the evidence's requirement with the roles the escalation chain has
 * added so far. A requirement that names no roles lets anyone decide, and adding roles
 * does not narrow it.
 */
export function decidingRequirement(s: GateState): GateState['payload']['reviewer_policy'] {
  const req = s.payload.reviewer_policy;
  if (!req || req.roles.length === 0 || !s.roles_added?.length) return req;
  return { ...req, roles: [...new Set([...req.roles, ...s.roles_added])] };
}

function resultOf(s: GateState, d: DecisionMessage, applied: boolean): DecisionResult {
  return {
    request_id: s.request_id,
    decision_id: d.decision_id,
    decision: d.decision,
    reviewer_id: d.reviewer_id,
    status: s.status,
    approvals: s.votes.length,
    approvals_required: s.approvals_required,
    applied,
    ...(s.grant && s.status !== 'requested' ? { grant: s.grant } : {}),
  };
}

/**
 * Applies a decision that `refuseDecision` accepted. For modify, `mod` carries the
 * validated args (for the external executor they are the request's args with the
 * reviewer's merged over them). Returns the audit events to append.
 */
export function applyDecision(
  s: GateState,
  d: DecisionMessage,
  now: string,
  mod?: Modification,
): { result: DecisionResult; events: AuditSpec[] } {
  const actor = { actor_type: 'human' as const, actor_id: d.reviewer_id };
  // Who authenticated, in every event of the decision. Only when the API said so: decisions
  // recorded before it (and replayed now) keep the exact events, and so the hashes, they had.
  const who = d.reviewer_auth ? { auth: d.reviewer_auth, reviewer_roles: d.reviewer_roles ?? [] } : {};
  const auth = d.reviewer_auth ? { auth: d.reviewer_auth } : {};
  const events: AuditSpec[] = [];
  if (d.decision === 'reject') {
    s.status = 'denied';
    s.decision = { decision: d.decision, reviewer_id: d.reviewer_id, reason: d.reason, note: d.note, at: now, ...auth };
    s.status_reason = d.reason;
    events.push({
      ...actor,
      event_type: 'approval.denied',
      note: d.reason,
      data: { decision_id: d.decision_id, ...(d.note ? { reviewer_note: d.note } : {}), ...who },
    });
  } else {
    if (d.decision === 'modify') {
      const m = mod ?? { args: mergeArgs(s.final_args, d.args ?? {}), executed_values: d.args };
      s.final_args = m.args;
      s.final_args_sha256 = digest(m.args);
      s.final_snapshot = m.snapshot ?? s.final_snapshot;
      s.executed_values = m.executed_values;
      s.modified_by = d.reviewer_id;
      s.approvals_required = Math.max(s.approvals_required, m.approvals_required ?? 0);
      s.votes = [];
      events.push({
        ...actor,
        event_type: 'approval.modified',
        note: d.note,
        data: {
          decision_id: d.decision_id,
          args: m.args,
          args_sha256: s.final_args_sha256,
          approvals_required: s.approvals_required,
          ...who,
        },
      });
    }
    s.votes.push({
      reviewer_id: d.reviewer_id,
      decision_id: d.decision_id,
      decision: d.decision,
      note: d.note,
      at: now,
      ...(d.reviewer_auth ? { auth: d.reviewer_auth, roles: d.reviewer_roles ?? [] } : {}),
      ...(d.grant ? { grant: voteGrant(d.grant) } : {}),
    });
    if (s.votes.length >= s.approvals_required) {
      s.status = 'approved';
      s.decision = { decision: d.decision, reviewer_id: d.reviewer_id, note: d.note, at: now, ...auth };
      const granted = quorumGrant(s, now);
      if (granted && 'grant' in granted) s.grant = granted.grant;
      events.push({
        ...actor,
        event_type: 'approval.approved',
        note: d.note,
        data: {
          decision_id: d.decision_id,
          reviewers: s.votes.map((v) => v.reviewer_id),
          args_sha256: s.final_args_sha256,
          ...who,
          ...(granted && 'grant' in granted ? { grant: granted.grant } : {}),
          ...(granted && 'refused' in granted ? { grant_refused: granted.refused } : {}),
        },
      });
    } else {
      events.push({
        ...actor,
        event_type: 'approval.vote_recorded',
        note: d.note,
        data: {
          decision_id: d.decision_id,
          approvals: s.votes.length,
          approvals_required: s.approvals_required,
          ...who,
        },
      });
    }
  }
  s.updated_at = now;
  const result = resultOf(s, d, true);
  // defineProperty: a key such as "__proto__" is stored as data, not as a prototype.
  const key = decisionKey(d);
  Object.defineProperty(s.decisions, key, { value: result, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(s.decision_digests, key, {
    value: decisionDigest(d),
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return { result, events };
}

/** Reviewer args merged over the requested ones (one level deep). */
export function mergeArgs(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  return { ...base, ...patch };
}

/**
 * Moves the gate by a system or agent event (expire, cancel, consume, invalidate).
 * Returns a refusal when the event is illegal in the current state.
 */
export function applyEvent(
  s: GateState,
  event: Exclude<LifecycleEvent, 'approve' | 'modify' | 'reject'>,
  now: string,
  reason: string,
): Refusal | null {
  const t = transition(s.status, event);
  if (!t.ok) return t.refusal;
  s.status = t.to;
  s.status_reason = reason;
  s.updated_at = now;
  return null;
}

/**
 * The consume transition, with who consumed the approval and when (`consumed_at` is the
 * transition's time). Every executor consumes through here: the external consumer's
 * update, the gate's own tool run, and the hand-over to a parent workflow.
 */
export function consumeApproval(s: GateState, by: string, now: string, reason: string): Refusal | null {
  const refused = applyEvent(s, 'consume', now, reason);
  if (refused) return refused;
  s.consumed_at = s.updated_at;
  s.consumed_by = by;
  return null;
}

/** NotRequester without naming the requester or the state: what any other caller is told. */
function notRequester(verb: string): Refusal {
  return { type: 'NotRequester', message: `only the requesting agent may ${verb} this request` };
}

/**
 * Why an executor may not consume now, or null. Only the requesting agent consumes; who
 * asks is checked before the state, so another caller learns nothing about the request.
 */
export function refuseConsume(s: GateState, consumerId: string): Refusal | null {
  if (consumerId !== s.payload.agent_id) return notRequester('consume');
  if (s.status !== 'approved') {
    const t = transition(s.status, 'consume');
    if (!t.ok) return t.refusal;
  }
  if (s.executor !== 'external')
    return {
      type: 'IllegalTransition',
      message:
        s.executor === 'tool'
          ? 'this request is executed by its gate (tool executor); it cannot be consumed from outside'
          : 'this request is consumed by the workflow that opened it; it cannot be consumed from outside',
    };
  return null;
}

/**
 * Why an actor may not cancel, or null. The requester or the owning run may cancel a
 * pending request; as for consume, who asks is checked before the state.
 */
export function refuseCancel(s: GateState, actorId: string, actorType: 'agent' | 'system'): Refusal | null {
  const stranger = actorType !== 'system' && actorId !== s.payload.agent_id;
  if (stranger) return notRequester('cancel');
  const t = transition(s.status, 'cancel');
  if (!t.ok) return t.refusal;
  return null;
}

export { isTerminal };
