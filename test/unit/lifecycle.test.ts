import {
  APPROVAL_STATUSES,
  isTerminal,
  LIFECYCLE_EVENTS,
  transition,
  type ApprovalStatus,
  type LifecycleEvent,
} from '../../src/common/lifecycle';

/**
 * The lifecycle of docs/concepts.md, written out independently of the implementation's
 * table: any change to `TRANSITIONS` (or a new state or event) makes a row below fail.
 */
const EXPECTED: Partial<Record<ApprovalStatus, Partial<Record<LifecycleEvent, ApprovalStatus>>>> = {
  requested: { approve: 'approved', modify: 'approved', reject: 'denied', expire: 'expired', cancel: 'cancelled' },
  approved: { consume: 'consumed', invalidate: 'invalidated', expire: 'expired' },
};
const TERMINAL: ApprovalStatus[] = ['denied', 'expired', 'consumed', 'cancelled', 'invalidated'];

const cross = APPROVAL_STATUSES.flatMap((from) =>
  LIFECYCLE_EVENTS.map((event) => ({ from, event, to: EXPECTED[from]?.[event] })),
);
const allowed = cross.filter((c) => c.to !== undefined);
const refused = cross.filter((c) => c.to === undefined);

describe('approval lifecycle', () => {
  it('has exactly the seven states and seven events of the design', () => {
    expect([...APPROVAL_STATUSES].sort()).toEqual([
      'approved',
      'cancelled',
      'consumed',
      'denied',
      'expired',
      'invalidated',
      'requested',
    ]);
    expect([...LIFECYCLE_EVENTS].sort()).toEqual([
      'approve',
      'cancel',
      'consume',
      'expire',
      'invalidate',
      'modify',
      'reject',
    ]);
    expect(cross).toHaveLength(49);
    expect(allowed).toHaveLength(8);
  });

  it.each(allowed)('moves a $from request to $to on $event', ({ from, event, to }) => {
    expect(transition(from, event)).toEqual({ ok: true, to });
  });

  it.each(refused)('refuses $event on a $from request as IllegalTransition naming both', ({ from, event }) => {
    const r = transition(from, event);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.refusal.type).toBe('IllegalTransition');
    expect(r.refusal.message).toContain(event);
    expect(r.refusal.message).toContain(from);
    expect(r.refusal.message).toMatch(new RegExp(`\\b${event}\\b.*\\b${from}\\b`));
    expect(r.refusal.details).toEqual({ status: from, event });
  });

  it.each(APPROVAL_STATUSES.map((s) => ({ status: s, terminal: TERMINAL.includes(s) })))(
    'reports $status as terminal=$terminal',
    ({ status, terminal }) => {
      expect(isTerminal(status)).toBe(terminal);
    },
  );

  it.each(TERMINAL)('lets no event leave the terminal state %s', (status) => {
    for (const event of LIFECYCLE_EVENTS) expect(transition(status, event).ok).toBe(false);
  });

  it('never lands in requested again: a denial or expiry is final', () => {
    for (const c of allowed) expect(c.to).not.toBe('requested');
  });
});
