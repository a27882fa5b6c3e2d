import type { WorkflowStartOptions } from '@temporalio/client';
import type { GateInput } from '../common/gate-state';
import type { approvalGateWorkflow } from '../workflow/gate/approval-gate';
import { DEFAULT_TENANT } from '../common/tenant';
import { gateStartAttributes } from '../workflow/gate/messages';

/**
 * How a gate workflow is started: the request id as workflow id; FAIL so a second
 * create with one key (even a concurrent one) is refused and answered from the existing
 * gate; REJECT_DUPLICATE so a finished request is never started again; search attributes, memo and summaries so
 * the Temporal Web UI can filter pending gates and show the evidence at a glance. The
 * tenant is a search attribute from the start, so no listing ever sees the gate outside it.
 */
export function startOptions(
  requestId: string,
  input: GateInput,
  taskQueue: string,
  nonce: string,
  tenant: string = DEFAULT_TENANT,
): WorkflowStartOptions<typeof approvalGateWorkflow> {
  return {
    workflowId: requestId,
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    ...gateStartAttributes(input, nonce, { tenant }),
  };
}
