import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { DecisionMessage } from '../../common/decision';
import { findSecrets } from '../../common/secrets';
import { applyEvent, mergeArgs, type GateInput, type GateState, type Modification } from '../../common/gate-state';
import type { GateActivities } from '../../worker/activities/contracts';
import type { AuditTrail } from './audit-trail';
import type { Deadlines } from './deadlines';
import { beforeExpiry, escalate, type Escalation } from './escalate';

// The steps of a gate that talk to the outside: validating a modification, waiting for a
// decision, then the consume (external); the tool run (tool executor) is in tool-run.ts.

const SYSTEM = 'approval-gate';

/**
 * Ends the gate by a system event and records it (`approval.expired` or
 * `approval.cancelled`): `reason` in its state, `note` and `data` in the trail. False,
 * and nothing recorded, when the event is illegal in the gate's state.
 */
export function systemEnd(
  state: GateState,
  trail: AuditTrail,
  event: 'expire' | 'cancel',
  reason: string,
  note: string = reason,
  data?: Record<string, unknown>,
): boolean {
  if (applyEvent(state, event, trail.now(), reason)) return false;
  trail.append({
    event_type: event === 'expire' ? 'approval.expired' : 'approval.cancelled',
    actor_type: 'system',
    actor_id: SYSTEM,
    note,
    ...(data ? { data } : {}),
  });
  return true;
}

export const DOMAIN_READS = {
  startToCloseTimeout: '1m',
  // Store reads ride out an outage of a few minutes; after that the gate fails closed (see tool-run.ts).
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 12 },
} as const;
const domain = proxyActivities<GateActivities>(DOMAIN_READS);

/**
 * Waits for the quorum or a denial until expires_at; then fails closed. Sends the
 * escalation notice on the way (once per gate, also across executions). Returns early,
 * undecided, when `handOver` holds (the execution's history is full; see gate-continuation).
 */
export async function awaitDecision(
  state: GateState,
  input: GateInput,
  trail: AuditTrail,
  handOver: () => boolean,
  deadlines: Deadlines,
  chain?: Escalation,
): Promise<void> {
  const settled = (): boolean => state.status !== 'requested' && !state.busy;
  const wake = (): boolean => settled() || handOver();
  const deadline = Date.parse(state.expires_at);
  const escalated = trail.events.some((e) => e.event_type === 'approval.escalated');
  // A gate that escalates first arms its TTL now: the expiry is on time whatever clock a level's task has.
  if (chain) {
    // Gates with notices (patch gate-notices): the chain's levels and the escalate_before notice on one timeline.
    if (!settled()) deadlines.armAhead(deadline);
    await escalate(state, input, trail, wake, deadlines, chain);
    if (!settled() && handOver()) return;
  } else if (input.escalate_before_seconds && !escalated) {
    const escalateAt = deadline - input.escalate_before_seconds * 1000;
    if (!deadlines.passed(escalateAt)) {
      if (!settled()) deadlines.armAhead(deadline);
      if (!(await deadlines.until(wake, escalateAt)) && state.status === 'requested') beforeExpiry(state, trail);
    }
    if (!settled() && handOver()) return;
  }
  const decided = deadlines.passed(deadline) ? settled() : await deadlines.until(wake, deadline);
  if (!settled() && handOver()) return;
  if (!decided && state.status === 'requested') {
    systemEnd(state, trail, 'expire', 'no decision before expires_at', `no decision before ${state.expires_at}`, {
      approvals: state.votes.length,
      approvals_required: state.approvals_required,
    });
  }
}

/**
 * External executor: one consume before the consume deadline, or the approval expires.
 * The deadline is set once (a continued execution keeps it); returns early, unconsumed,
 * when `handOver` holds.
 */
export async function awaitConsume(
  state: GateState,
  input: GateInput,
  trail: AuditTrail,
  handOver: () => boolean,
  deadlines: Deadlines,
): Promise<void> {
  state.consume_deadline ??= new Date(deadlines.now() + input.consume_ttl_seconds * 1000).toISOString();
  const deadline = Date.parse(state.consume_deadline);
  const open = (): boolean => state.status !== 'approved' || handOver();
  const done = deadlines.passed(deadline) ? false : await deadlines.until(open, deadline);
  if (state.status === 'approved' && handOver()) return;
  if (!done && state.status === 'approved') {
    const note = `not consumed before ${state.consume_deadline}`;
    systemEnd(state, trail, 'expire', 'approved but not consumed before the consume deadline', note);
  }
}

/** A reviewer's modification, validated: the domain's revise for tool gates, a secret-checked merge otherwise. */
export async function validateModification(
  state: GateState,
  input: GateInput,
  d: DecisionMessage,
): Promise<Modification> {
  const patch = d.args ?? {};
  if (state.executor === 'tool' && input.tool && state.final_snapshot) {
    const r = await domain.reviseToolCall({
      ...input.tool,
      tool: state.final_snapshot.tool,
      input: state.final_args,
      patch,
    });
    if (!r.ok)
      throw ApplicationFailure.create({
        type: 'InvalidArgs',
        message: `modified args refused: ${r.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
        details: [r.issues],
        nonRetryable: true,
      });
    return {
      args: r.input,
      snapshot: r.snapshot,
      approvals_required: r.approvals_required,
      executed_values: r.executed_values,
      call_args: r.call_args ?? r.input,
    };
  }
  const args = mergeArgs(state.final_args, patch);
  const secrets = findSecrets(args, '$.args');
  if (secrets.length > 0)
    throw ApplicationFailure.create({
      type: 'InvalidArgs',
      message: `modified args carry secrets at ${secrets.join(', ')}`,
      details: [secrets.map((p) => ({ path: p, message: 'secret' }))],
      nonRetryable: true,
    });
  return { args, executed_values: patch };
}
