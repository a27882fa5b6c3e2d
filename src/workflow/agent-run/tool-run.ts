import {
  ActivityFailure,
  CancelledFailure,
  TemporalFailure,
  proxyLocalActivities,
  proxyActivities,
} from '@temporalio/workflow';
import { applyEvent, consumeApproval, type GateInput, type GateState } from '../../common/gate-state';
import { snapshotIdentityMismatches } from '../../common/snapshot';
import type { GateActivities } from '../../worker/activities/contracts';
import type { ToolOutput } from '../../domain/types';
import type { AuditTrail } from '../gate/audit-trail';
import { DOMAIN_READS } from '../gate/phases';
import {
  failureMessageOf,
  failureTypeOf,
  isToolFailed,
  namedFailure,
  TOOL_ACTIVITY_OPTIONS,
} from '../internal/failures';

// The tool executor's run: re-check the approved snapshot right before the effect, then
// run the tool once, keyed by the request id.

const SYSTEM = 'approval-gate';

/** The separate re-check as a local activity: it runs inside the workflow task that then schedules the tool. */
const localDomain = proxyLocalActivities<GateActivities>(DOMAIN_READS);

const tools = proxyActivities<GateActivities>(TOOL_ACTIVITY_OPTIONS);

/**
 * Tool executor: re-check the snapshot (identity here, store state in the adapter),
 * then consume and run the tool once, keyed by the request id. A mismatch is a policy
 * block (`invalidated`); an error inside the tool is an execution failure.
 */
export async function runTool(state: GateState, input: GateInput, trail: AuditTrail): Promise<void> {
  const snapshot = state.final_snapshot;
  const ref = input.tool;
  const block = (reason: string, mismatches: string[]): void => {
    applyEvent(state, 'invalidate', trail.now(), reason);
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
    consumeApproval(state, SYSTEM, trail.now(), 'executed by the gate');
    trail.append({
      event_type: 'approval.consumed',
      actor_type: 'system',
      actor_id: SYSTEM,
      data: { args_sha256: state.final_args_sha256, idempotency_key: state.request_id },
    });
  };
  const succeeded = (out: ToolOutput): void => {
    state.execution = { outcome: 'success', content: out.content, values: out.values, at: trail.now() };
    trail.append({
      event_type: 'tool.succeeded',
      actor_type: 'system',
      actor_id: SYSTEM,
      data: { tool: snapshot.tool, values: out.values ?? {} },
    });
  };
  /**
   * The tool refused (ToolFailed): its failure is the gate's outcome. Anything else outlived
   * the activity's retries: the gate fails, named by the cause's type, trail written first.
   */
  const failed = async (err: ActivityFailure): Promise<void> => {
    if (!isToolFailed(err)) {
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
    state.execution = { outcome: 'failure', content: message, error: message, at: trail.now() };
    trail.append({
      event_type: 'tool.failed',
      actor_type: 'system',
      actor_id: SYSTEM,
      note: message,
      data: { tool: snapshot.tool },
    });
  };

  // One activity: the re-check, then the effect, in the same attempt. The trail records
  // the verification and the consume once the activity has answered.
  let r;
  try {
    r = await tools.recheckAndExecuteTool({ ...call, snapshot });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    if (isToolFailed(err)) consume(); // the tool's own refusal: its re-check had passed
    return failed(err);
  }
  if (!('unsupported' in r)) {
    if (!r.ran) return block(r.recheck.reason, r.recheck.mismatches);
    consume();
    return succeeded(r.output);
  }

  // The domain cannot tell a retry after the effect from a fresh call: re-check first, in two steps.
  let check;
  try {
    check = await localDomain.recheckSnapshot({ ...ref, tool: snapshot.tool, input: state.final_args, snapshot });
  } catch (err) {
    // A local activity's final failure arrives as the failure itself, a regular one's wrapped in ActivityFailure.
    if (!(err instanceof TemporalFailure) || err instanceof CancelledFailure) throw err;
    const message = err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : err.message;
    // Fail closed: an approval that cannot be verified is not executed, and the gate still ends.
    return block(`could not verify the approved snapshot: ${message}`, ['recheck unavailable']);
  }
  if (!check.ok) return block(check.reason, check.mismatches);
  consume();
  try {
    succeeded(await tools.executeTool(call));
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await failed(err);
  }
}
