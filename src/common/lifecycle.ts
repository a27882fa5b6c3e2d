import type { Refusal } from './failure-types';

/** Every state a request can be in. The first two are live; the rest are terminal. */
export const ApprovalStatus = {
  Requested: 'requested',
  Approved: 'approved',
  Denied: 'denied',
  Expired: 'expired',
  Consumed: 'consumed',
  Cancelled: 'cancelled',
  Invalidated: 'invalidated',
} as const;
export type ApprovalStatus = (typeof ApprovalStatus)[keyof typeof ApprovalStatus];
export const APPROVAL_STATUSES = Object.values(ApprovalStatus);

/** What can happen to a request. */
export const LifecycleEvent = {
  Approve: 'approve',
  Modify: 'modify',
  Reject: 'reject',
  Expire: 'expire',
  Cancel: 'cancel',
  Consume: 'consume',
  Invalidate: 'invalidate',
} as const;
export type LifecycleEvent = (typeof LifecycleEvent)[keyof typeof LifecycleEvent];
export const LIFECYCLE_EVENTS = Object.values(LifecycleEvent);

/** The whole lifecycle: state -> event -> next state. Anything absent is illegal. */
const TRANSITIONS: Record<ApprovalStatus, Partial<Record<LifecycleEvent, ApprovalStatus>>> = {
  requested: { approve: 'approved', modify: 'approved', reject: 'denied', expire: 'expired', cancel: 'cancelled' },
  // `expire` from approved is the consume deadline passing; `invalidate` is snapshot drift.
  approved: { consume: 'consumed', invalidate: 'invalidated', expire: 'expired' },
  denied: {},
  expired: {},
  consumed: {},
  cancelled: {},
  invalidated: {},
};

/** True for states no event leaves. */
export function isTerminal(status: ApprovalStatus): boolean {
  return Object.keys(TRANSITIONS[status]).length === 0;
}

const WHY: Record<ApprovalStatus, string> = {
  requested: 'the request is still waiting for a decision',
  approved: 'the request was already decided',
  denied: 'the request was denied, and a denial is final',
  expired: 'the request expired (fails closed)',
  consumed: 'the approval was already consumed',
  cancelled: 'the request was cancelled',
  invalidated: 'the approved snapshot drifted and the approval was invalidated',
};

/** The next state, or a refusal that says why the event is illegal here. */
export function transition(
  from: ApprovalStatus,
  event: LifecycleEvent,
): { ok: true; to: ApprovalStatus } | { ok: false; refusal: Refusal } {
  const to = TRANSITIONS[from][event];
  if (to) return { ok: true, to };
  return {
    ok: false,
    refusal: {
      type: 'IllegalTransition',
      message: `cannot ${event} a request that is ${from}: ${WHY[from]}`,
      details: { status: from, event },
    },
  };
}
