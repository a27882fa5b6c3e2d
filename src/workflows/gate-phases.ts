import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  TemporalFailure,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { DecisionMessage } from '../core/decision';
import { findSecrets } from '../core/secrets';
import { applyEvent, mergeArgs, type GateInput, type GateState, type Modification } from '../core/gate-state';
import { snapshotIdentityMismatches } from '../core/snapshot';
import type { GateActivities } from '../activities/contracts';
import type { AuditTrail } from './audit-trail';
import type { Patched } from './patch-baseline';
import {
  ERROR_CLASSES_PATCH,
  failureMessageOf,
  failureTypeOf,
  isToolFailed,
  namedFailure,
  TOOL_ACTIVITY_OPTIONS,
} from './failures';

// The steps of a gate that talk to the outside: validating a modification, waiting for a
// decision, then the consume (external) or the tool run (tool executor).

const SYSTEM = 'approval-gate';
const now = (): string => new Date().toISOString();

const DOMAIN_READS = {
  startToCloseTimeout: '1m',
  // Store reads ride out an outage of a few minutes; after that the gate fails closed (see runTool).
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 12 },
} as const;
const domain = proxyActivities<GateActivities>(DOMAIN_READS);
/** The re-check as a local activity: it runs inside the workflow task that then schedules the tool. */
const localDomain = proxyLocalActivities<GateActivities>(DOMAIN_READS);

/**
 * Patch id of the local re-check. Histories recorded before it scheduled `recheckSnapshot`
 * as a regular activity and keep doing so on replay.
 */
export const RECHECK_LOCAL_PATCH = 'recheck-local-v1';

/** Executions recorded before ERROR_CLASSES_PATCH: five attempts, then any error was recorded as the tool's failure. */
const toolsV1 = proxyActivities<GateActivities>({
  startToCloseTimeout: '5m',
  heartbeatTimeout: '5s', // executeTool heartbeats every second: a dead worker is noticed fast
  // The tool is idempotent by key, so a retry after a crash is safe; ToolFailed is final.
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 5, nonRetryableErrorTypes: ['ToolFailed'] },
});
const tools = proxyActivities<GateActivities>(TOOL_ACTIVITY_OPTIONS);

/**
 * Waits for the quorum or a denial until expires_at; then fails closed. Sends the
 * escalation notice on the way (once per gate, also across executions). Returns early,
 * undecided, when `handOver` holds (the execution's history is full; see gate-continuation).
 */
export async function awaitDecision(
  state: GateState,
  input: GateInput,
  trail: AuditTrail,
  handOver: () => boolean = () => false,
): Promise<void> {
  const settled = (): boolean => state.status !== 'requested' && !state.busy;
  const wake = (): boolean => settled() || handOver();
  const deadline = Date.parse(state.expires_at);
  const escalated = trail.events.some((e) => e.event_type === 'approval.escalated');
  if (input.escalate_before_seconds && !escalated) {
    const escalateIn = deadline - input.escalate_before_seconds * 1000 - Date.now();
    if (escalateIn > 0 && !(await condition(wake, escalateIn)) && state.status === 'requested') {
      trail.append({
        event_type: 'approval.escalated',
        actor_type: 'system',
        actor_id: SYSTEM,
        note: `no decision yet; expires at ${state.expires_at}`,
        data: { approvals: state.votes.length, approvals_required: state.approvals_required },
      });
    }
    if (!settled() && handOver()) return;
  }
  const remaining = deadline - Date.now();
  const decided = remaining > 0 ? await condition(wake, remaining) : settled();
  if (!settled() && handOver()) return;
  if (!decided && state.status === 'requested') {
    applyEvent(state, 'expire', now(), 'no decision before expires_at');
    trail.append({
      event_type: 'approval.expired',
      actor_type: 'system',
      actor_id: SYSTEM,
      note: `no decision before ${state.expires_at}`,
      data: { approvals: state.votes.length, approvals_required: state.approvals_required },
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
  handOver: () => boolean = () => false,
): Promise<void> {
  state.consume_deadline ??= new Date(Date.now() + input.consume_ttl_seconds * 1000).toISOString();
  const ms = Date.parse(state.consume_deadline) - Date.now();
  const done = ms > 0 ? await condition(() => state.status !== 'approved' || handOver(), ms) : false;
  if (state.status === 'approved' && handOver()) return;
  if (!done && state.status === 'approved') {
    applyEvent(state, 'expire', now(), 'approved but not consumed before the consume deadline');
    trail.append({
      event_type: 'approval.expired',
      actor_type: 'system',
      actor_id: SYSTEM,
      note: `not consumed before ${state.consume_deadline}`,
    });
  }
}

/**
 * Tool executor: re-check the snapshot (identity here, store state in the adapter),
 * then consume and run the tool once, keyed by the request id. A mismatch is a policy
 * block (`invalidated`); an error inside the tool is an execution failure.
 */
export async function runTool(
  state: GateState,
  input: GateInput,
  trail: AuditTrail,
  isPatched: Patched = patched,
): Promise<void> {
  const snapshot = state.final_snapshot;
  const ref = input.tool;
  const block = (reason: string, mismatches: string[]): void => {
    applyEvent(state, 'invalidate', now(), reason);
    trail.append({
      event_type: 'approval.invalidated',
      actor_type: 'system',
      actor_id: SYSTEM,
      note: reason,
      data: { mismatches, policy_block: true },
    });
  };
  if (!snapshot || !ref) return block('a tool gate needs a snapshot and a domain to run in', ['snapshot']);
  const identity = snapshotIdentityMismatches(snapshot, snapshot.tool, state.final_args);
  if (identity.length > 0) return block('the args to run are not the approved args', identity);
  let check;
  const recheck = isPatched(RECHECK_LOCAL_PATCH) ? localDomain.recheckSnapshot : domain.recheckSnapshot;
  try {
    check = await recheck({ ...ref, tool: snapshot.tool, input: state.final_args, snapshot });
  } catch (err) {
    // A local activity's final failure arrives as the failure itself, a regular one's wrapped in ActivityFailure.
    if (!(err instanceof TemporalFailure) || err instanceof CancelledFailure) throw err;
    const message = err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : err.message;
    // Fail closed: an approval that cannot be verified is not executed, and the gate still ends.
    return block(`could not verify the approved snapshot: ${message}`, ['recheck unavailable']);
  }
  if (!check.ok) return block(check.reason, check.mismatches);
  trail.append({ event_type: 'snapshot.verified', actor_type: 'system', actor_id: SYSTEM, data: { snapshot } });
  applyEvent(state, 'consume', now(), 'executed by the gate');
  state.consumed_at = state.updated_at;
  state.consumed_by = SYSTEM;
  trail.append({
    event_type: 'approval.consumed',
    actor_type: 'system',
    actor_id: SYSTEM,
    data: { args_sha256: state.final_args_sha256, idempotency_key: state.request_id },
  });
  const classify = isPatched(ERROR_CLASSES_PATCH);
  try {
    const out = await (classify ? tools : toolsV1).executeTool({
      ...ref,
      tool: snapshot.tool,
      input: state.final_args,
      idempotency_key: state.request_id,
    });
    state.execution = { outcome: 'success', content: out.content, values: out.values, at: now() };
    trail.append({
      event_type: 'tool.succeeded',
      actor_type: 'system',
      actor_id: SYSTEM,
      data: { tool: snapshot.tool, values: out.values ?? {} },
    });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    if (classify && !isToolFailed(err)) {
      // Not the tool's verdict and past every retry: the gate fails, named by the cause's type, trail written first.
      trail.append({
        event_type: 'tool.failed',
        actor_type: 'system',
        actor_id: SYSTEM,
        note: failureMessageOf(err),
        data: { tool: snapshot.tool, failure_type: failureTypeOf(err) },
      });
      await trail.flush();
      throw namedFailure(err);
    }
    const message = err.cause?.message ?? err.message;
    state.execution = { outcome: 'failure', content: message, error: message, at: now() };
    trail.append({
      event_type: 'tool.failed',
      actor_type: 'system',
      actor_id: SYSTEM,
      note: message,
      data: { tool: snapshot.tool },
    });
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
