import { workflowInfo } from '@temporalio/workflow';
import { digest } from '../common/hashing';

// Module state is per workflow execution: each workflow evaluates its modules in its own
// module cache (see src/workflow/bundle-entry.ts), so this counts the calls of one run, and a
// replay counts them again from 1 in the same order (deterministic).
let calls = 0;

/** Longest request id the evidence schema takes. */
const MAX_ID = 200;

/** The default request id of the next gate this run opens (see RequireApprovalOptions.requestId). */
export function nextRequestId(): string {
  calls += 1;
  const info = workflowInfo();
  // A retried or continued-as-new run restarts the count; its run id keeps its ids apart from the first run's.
  const run = info.runId === info.firstExecutionRunId ? '' : `-${info.runId.slice(0, 8)}`;
  const id = `${info.workflowId}${run}-approval-${calls}`;
  return id.length <= MAX_ID ? id : `${info.workflowId.slice(0, 100)}-${digest([id]).slice(0, 24)}`;
}
