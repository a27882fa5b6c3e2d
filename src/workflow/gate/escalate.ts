import { levelSchedule, type ScheduledLevel } from '../../common/escalation';
import type { GateInput, GateState } from '../../common/gate-state';
import type { AuditTrail } from './audit-trail';
import type { Deadlines } from './deadlines';
import type { Notices } from './notices';

const SYSTEM = 'approval-gate';

/** What a gate with notices escalates with: its messages, and its chain when the evidence carries one. */
export interface Escalation {
  notices: Notices;
  chain?: NonNullable<GateState['payload']['escalation']>;
}

/** A point on the gate's timeline: a chain level, or the escalate_before notice. */
interface Moment {
  at: number;
  fire: () => void;
}

/**
 * Runs the escalation chain until the gate is decided, hands over, or the last level has
 * fired: each level on a durable timer counted from creation, so a crashed worker's
 * successor (or the next execution after continue-as-new, which carries `escalation.fired`)
 * fires it on time. A level whose time passed while no worker ran fires at once. Levels
 * after the expiry were dropped from the schedule: the TTL is never extended.
 * Workflow code: deterministic (the workflow clock, timers in schedule order).
 */
export async function escalate(
  state: GateState,
  input: GateInput,
  trail: AuditTrail,
  wake: () => boolean,
  deadlines: Deadlines,
  esc: Escalation,
): Promise<void> {
  const deadline = Date.parse(state.expires_at);
  const moments: Moment[] = [];
  const noticed = trail.events.some((e) => e.event_type === 'approval.escalated' && typeof e.data.level !== 'number');
  if (input.escalate_before_seconds && !noticed)
    moments.push({ at: deadline - input.escalate_before_seconds * 1000, fire: () => beforeExpiry(state, trail) });
  if (esc.chain) {
    const progress = (state.escalation ??= { fired: 0 });
    levelSchedule(esc.chain, Date.parse(state.created_at), deadline)
      .slice(progress.fired)
      .forEach((l) => moments.push({ at: l.at, fire: () => fireLevel(state, trail, esc.notices, l) }));
  }
  moments.sort((a, b) => a.at - b.at); // stable: the chain's order at equal times
  for (const m of moments) {
    if (!deadlines.passed(m.at) && (await deadlines.until(wake, m.at))) return; // decided, or handing over
    if (state.status !== 'requested') return;
    m.fire();
  }
}

/** The escalate_before notice, as 0.1.0 gates record it. */
export function beforeExpiry(state: GateState, trail: AuditTrail): void {
  trail.append({
    event_type: 'approval.escalated',
    actor_type: 'system',
    actor_id: SYSTEM,
    note: `no decision yet; expires at ${state.expires_at}`,
    data: { approvals: state.votes.length, approvals_required: state.approvals_required },
  });
}

/** One level: its roles may decide from now on, its event is recorded, its targets are told. */
function fireLevel(state: GateState, trail: AuditTrail, notices: Notices, l: ScheduledLevel): void {
  const had = state.roles_added ?? [];
  const added = l.roles.filter((r) => !had.includes(r));
  if (added.length > 0) state.roles_added = [...had, ...added];
  state.escalation = { fired: (state.escalation?.fired ?? 0) + 1, level: l.level, loop: l.loop };
  trail.append({
    event_type: 'approval.escalated',
    actor_type: 'system',
    actor_id: SYSTEM,
    note: `level ${l.level}${l.loop > 0 ? ` (repeat ${l.loop})` : ''}: no decision yet; expires at ${state.expires_at}`,
    data: {
      level: l.level,
      loop: l.loop,
      targets: l.notify,
      roles_added: l.roles,
      approvals: state.votes.length,
      approvals_required: state.approvals_required,
    },
  });
  notices.tell('escalated', l.notify, l.level, l.loop, l.roles);
}
