import { decidingRequirement, refuseDecision, type GateState } from './gate-state';

/**
 * Whether the person reading a request may decide it now, and why not. The reviewer page
 * shows the reason instead of buttons, so nobody learns it only from a refused decision.
 */
export interface Viewer {
  reviewer_id: string;
  may_decide: boolean;
  /** Why not, in words for the person reading; absent when they may decide. */
  reason?: string;
  /** The refusal a decision would get (`self_approval`, `duplicate_reviewer`, ...), for clients that branch. */
  code?: string;
  /**
   * Set on list items: the list knows the request's status and requester only, so the
   * roles and earlier votes are checked when the request is read on its own.
   */
  partial?: true;
}

/** The reviewer reading: their id and roles as the API authenticated them. */
export interface Reader {
  id: string;
  roles?: readonly string[];
}

const snake = (type: string): string => type.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * The viewer of a live gate: the refusal an approval by `who` would get right now
 * (`refuseDecision`, the gate's own check), told to that person. A gate busy applying
 * another decision is no reason: it is over in a moment.
 */
export function viewerOf(s: GateState, who: Reader): Viewer {
  const refusal = refuseDecision(s, {
    decision: 'approve',
    decision_id: 'viewer',
    reviewer_id: who.id,
    reviewer_roles: [...(who.roles ?? [])],
    payload_sha256: s.payload_sha256,
    args_sha256: s.final_args_sha256,
  });
  if (!refusal || refusal.type === 'Busy') return { reviewer_id: who.id, may_decide: true };
  const roles = decidingRequirement(s)?.roles ?? [];
  const held = who.roles ?? [];
  const reason: Record<string, string> = {
    SelfApproval: `You requested this action (as ${s.payload.agent_id}), so you cannot decide on it.`,
    DuplicateReviewer: `You already approved this request; it needs ${s.approvals_required} distinct reviewers (${s.votes.length} so far), so another reviewer decides next.`,
    IneligibleReviewer: `Deciding ${s.payload.action} needs one of the roles ${roles.join(', ')}; you have ${held.length ? held.join(', ') : 'none'}.`,
    IllegalTransition: closedReason(s.status),
  };
  return {
    reviewer_id: who.id,
    may_decide: false,
    reason: reason[refusal.type] ?? refusal.message,
    code: snake(refusal.type),
  };
}

/** What a list item (status and requester only) says about `who`: see `Viewer.partial`. */
export function listViewerOf(
  s: { status: string; agent_id: string; closed?: boolean; stale?: boolean },
  who: Reader,
): Viewer {
  const base = { reviewer_id: who.id, partial: true as const };
  if (s.status !== 'requested' || s.closed)
    return { ...base, may_decide: false, reason: closedReason(s.status), code: 'illegal_transition' };
  if (s.agent_id === who.id)
    return {
      ...base,
      may_decide: false,
      reason: `You requested this action (as ${s.agent_id}), so you cannot decide on it.`,
      code: 'self_approval',
    };
  return { ...base, may_decide: true };
}

/** The viewer of a gate no worker answered for: nothing can be decided until one does. */
export function unansweredViewerOf(who: Reader): Viewer {
  return {
    reviewer_id: who.id,
    may_decide: false,
    reason: 'No worker answered for this request, so it cannot take a decision now; try again shortly.',
    code: 'gate_unavailable',
  };
}

function closedReason(status: string): string {
  return status === 'requested'
    ? 'This request can take no decision now.'
    : `This request is ${status}; it takes no more decisions.`;
}
