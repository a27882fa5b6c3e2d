import { ActivityFailure, CancelledFailure, TemporalFailure, proxyActivities } from '@temporalio/workflow';
import { applyEvent, consumeApproval, type GateInput, type GateState } from '../../common/gate-state';
import type { RecheckResult } from '../../domain/types';
import type { AuditTrail } from './audit-trail';

// The `workflow` executor's last step: the approval goes to the workflow that opened the
// gate (requireApproval), as the gate's result. Consumed here, exactly once, because a
// workflow's result is delivered once into its parent's history.

const SYSTEM = 'approval-gate';

/** What the caller's recheck activity is given: the approved args and the evidence they were approved on. */
export interface HandOverRecheckInput {
  request_id: string;
  action: string;
  target: string;
  args: Record<string, unknown>;
  preconditions: Record<string, unknown>;
  snapshot?: GateState['final_snapshot'];
}

/**
 * Runs the caller's recheck (when it named one) and consumes the approval on the
 * caller's behalf. A mismatch, or a recheck that cannot run, ends the gate
 * `invalidated` (a policy block, failing closed), never a failure.
 */
export async function handOver(state: GateState, input: GateInput, trail: AuditTrail): Promise<void> {
  const consumer = input.parent?.workflow_id ?? state.payload.correlation_id;
  const recheck = input.parent?.recheck;
  if (recheck) {
    const check = await runRecheck(state, recheck);
    if (!check.ok) {
      applyEvent(state, 'invalidate', trail.now(), check.reason);
      trail.append({
        event_type: 'approval.invalidated',
        actor_type: 'system',
        actor_id: SYSTEM,
        note: check.reason,
        data: { mismatches: check.mismatches, policy_block: true },
      });
      return;
    }
    trail.append({
      event_type: 'snapshot.verified',
      actor_type: 'system',
      actor_id: SYSTEM,
      data: { recheck: recheck.activity, snapshot: state.final_snapshot ?? null },
    });
  }
  consumeApproval(state, consumer, trail.now(), `handed to workflow ${consumer}`);
  trail.append({
    event_type: 'approval.consumed',
    actor_type: 'agent',
    actor_id: consumer,
    data: { args_sha256: state.final_args_sha256, idempotency_key: state.request_id, executor: 'workflow' },
  });
}

async function runRecheck(
  state: GateState,
  recheck: NonNullable<NonNullable<GateInput['parent']>['recheck']>,
): Promise<RecheckResult> {
  const acts = proxyActivities<Record<string, (i: HandOverRecheckInput) => Promise<RecheckResult>>>({
    taskQueue: recheck.task_queue,
    startToCloseTimeout: '1m',
    // A store read rides out an outage of a few minutes; after that the gate fails closed.
    retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 12 },
  });
  try {
    const r = await acts[recheck.activity]!({
      request_id: state.request_id,
      action: state.payload.action,
      target: state.payload.target,
      args: state.final_args,
      preconditions: state.payload.preconditions,
      ...(state.final_snapshot ? { snapshot: state.final_snapshot } : {}),
    });
    if (r && r.ok === true) return r;
    if (r && r.ok === false)
      return { ok: false, reason: String(r.reason), mismatches: Array.isArray(r.mismatches) ? r.mismatches : [] };
    return {
      ok: false,
      reason: 'the recheck returned neither { ok: true } nor { ok: false }',
      mismatches: ['recheck'],
    };
  } catch (err) {
    if (!(err instanceof TemporalFailure) || err instanceof CancelledFailure) throw err;
    const message = err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : err.message;
    return { ok: false, reason: `could not verify the approval: ${message}`, mismatches: ['recheck unavailable'] };
  }
}
