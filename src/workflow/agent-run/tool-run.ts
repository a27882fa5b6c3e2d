import {
  ActivityFailure,
  CancelledFailure,
  TemporalFailure,
  patched,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import { applyEvent, consumeApproval, type GateInput, type GateState } from '../../common/gate-state';
import { snapshotIdentityMismatches } from '../../common/snapshot';
import type { GateActivities } from '../../worker/activities/contracts';
import type { ToolOutput } from '../../domain/types';
import type { AuditTrail } from '../gate/audit-trail';
import { DOMAIN_READS } from '../gate/phases';
import type { Patched } from '../gate/patch-baseline';
import {
  ERROR_CLASSES_PATCH,
  failureMessageOf,
  failureTypeOf,
  isToolFailed,
  namedFailure,
  TOOL_ACTIVITY_OPTIONS,
} from '../internal/failures';

// The tool executor's run: re-check the approved snapshot right before the effect, then
// run the tool once, keyed by the request id.

const SYSTEM = 'approval-gate';
const now = (): string => new Date().toISOString();

const domain = proxyActivities<GateActivities>(DOMAIN_READS);
/** The re-check as a local activity: it runs inside the workflow task that then schedules the tool. */
const localDomain = proxyLocalActivities<GateActivities>(DOMAIN_READS);

/**
 * Patch id of the local re-check. Histories recorded before it scheduled `recheckSnapshot`
 * as a regular activity and keep doing so on replay.
 */
export const RECHECK_LOCAL_PATCH = 'recheck-local-v1';
/**
 * Patch id of the re-check inside the tool's activity (`recheckAndExecuteTool`): one
 * activity instead of a local re-check, a second activation and then the tool. Histories
 * recorded before it re-check in a local activity (or a regular one, before RECHECK_LOCAL_PATCH).
 */
export const RECHECK_IN_TOOL_PATCH = 'recheck-in-tool-v1';

/** Executions recorded before ERROR_CLASSES_PATCH: five attempts, then any error was recorded as the tool's failure. */
const toolsV1 = proxyActivities<GateActivities>({
  startToCloseTimeout: '5m',
  heartbeatTimeout: '5s', // executeTool heartbeats every second: a dead worker is noticed fast
  // The tool is idempotent by key, so a retry after a crash is safe; ToolFailed is final.
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 5, nonRetryableErrorTypes: ['ToolFailed'] },
});
const tools = proxyActivities<GateActivities>(TOOL_ACTIVITY_OPTIONS);

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
  const call = { ...ref, tool: snapshot.tool, input: state.final_args, idempotency_key: state.request_id };
  const consume = (): void => {
    trail.append({ event_type: 'snapshot.verified', actor_type: 'system', actor_id: SYSTEM, data: { snapshot } });
    consumeApproval(state, SYSTEM, now(), 'executed by the gate');
    trail.append({
      event_type: 'approval.consumed',
      actor_type: 'system',
      actor_id: SYSTEM,
      data: { args_sha256: state.final_args_sha256, idempotency_key: state.request_id },
    });
  };
  const succeeded = (out: ToolOutput): void => {
    state.execution = { outcome: 'success', content: out.content, values: out.values, at: now() };
    trail.append({
      event_type: 'tool.succeeded',
      actor_type: 'system',
      actor_id: SYSTEM,
      data: { tool: snapshot.tool, values: out.values ?? {} },
    });
  };
  /** The tool refused (ToolFailed), or (classified) could not run past every retry: the gate fails, trail written first. */
  const failed = async (err: ActivityFailure, classify: boolean): Promise<void> => {
    if (classify && !isToolFailed(err)) {
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
  };

  if (isPatched(RECHECK_IN_TOOL_PATCH)) {
    // One activity: the re-check, then the effect, in the same attempt. The trail records
    // the verification and the consume once the activity has answered.
    let r;
    try {
      r = await tools.recheckAndExecuteTool({ ...call, snapshot });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      if (isToolFailed(err)) consume(); // the tool's own refusal: its re-check had passed
      return failed(err, true);
    }
    if (!('unsupported' in r)) {
      if (!r.ran) return block(r.recheck.reason, r.recheck.mismatches);
      consume();
      return succeeded(r.output);
    }
    // The domain cannot tell a retry after the effect from a fresh call: re-check first, in two steps.
  }

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
  consume();
  const classify = isPatched(ERROR_CLASSES_PATCH);
  try {
    succeeded(await (classify ? tools : toolsV1).executeTool(call));
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await failed(err, classify);
  }
}
