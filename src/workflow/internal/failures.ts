import {
  type ActivityOptions,
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  type TemporalFailure,
} from '@temporalio/workflow';
import { FailureType, type Refusal } from '../../common/failure-types';

/** A pure-code refusal as the one kind of error workflow code may throw. */
export function refusalFailure(r: Refusal): ApplicationFailure {
  return ApplicationFailure.create({
    type: r.type,
    message: r.message,
    details: r.details === undefined ? undefined : [r.details],
    nonRetryable: true,
  });
}

/**
 * The tool activity. Errors are classified by who is at fault: only a tool's own final
 * refusal (ToolFailed) is a tool failure; infrastructure errors retry until they pass (the
 * tool is idempotent by key); a failed run or gate names its cause's type; a bug in
 * workflow code fails the workflow task instead of the run.
 */
export const TOOL_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '5m',
  heartbeatTimeout: '5s', // executeTool heartbeats every second: a dead worker is noticed fast
  retry: { initialInterval: '1s', maximumInterval: '1m', nonRetryableErrorTypes: [FailureType.ToolFailed] },
};

/** The innermost failure that says what went wrong (an activity's or a child's own error). */
function rootOf(err: unknown): unknown {
  let e = err;
  while ((e instanceof ActivityFailure || e instanceof ChildWorkflowFailure) && e.cause) e = e.cause;
  return e;
}

/** The failure type a failed run or gate reports: its cause's own type (e.g. `ModelUnavailable`, `TimeoutFailure`), never a blanket one. */
export function failureTypeOf(err: unknown): string {
  const root = rootOf(err);
  if (root instanceof ApplicationFailure) return root.type ?? 'Error';
  return root instanceof Error ? root.name : 'Error';
}

/** The cause's message, for the view and the trail. */
export function failureMessageOf(err: unknown): string {
  const root = rootOf(err);
  return root instanceof Error ? root.message : String(root);
}

/** True when the tool itself declared the failure final (a `DomainToolError` reported as ToolFailed). */
export function isToolFailed(err: unknown): boolean {
  const root = rootOf(err);
  return root instanceof ApplicationFailure && root.type === FailureType.ToolFailed;
}

/**
 * A failure as a run or gate ends on it: an ApplicationFailure of the cause's own type.
 * Only for TemporalFailures; anything else in workflow code is a bug and is rethrown as is.
 */
export function namedFailure(err: TemporalFailure): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  return ApplicationFailure.create({
    type: failureTypeOf(err),
    message: failureMessageOf(err),
    nonRetryable: true,
    cause: err,
  });
}
