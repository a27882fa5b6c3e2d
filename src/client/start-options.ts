import type { WorkflowStartOptions } from '@temporalio/client';
import type { GateInput } from '../core/gate-state';
import type { approvalGateWorkflow } from '../workflows/approval-gate';
import { DEFAULT_TENANT } from '../core/tenant';
import { GATE_ACTION, GATE_AGENT, GATE_STATUS, GATE_TARGET, GATE_TENANT } from '../workflows/definitions';
import { gateMemo, gateUiText } from '../core/gate-memo';

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
  const p = input.payload;
  const memo = gateMemo(input, nonce);
  return {
    workflowId: requestId,
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: [
      { key: GATE_STATUS, value: 'requested' },
      { key: GATE_ACTION, value: p.action },
      { key: GATE_AGENT, value: p.agent_id },
      { key: GATE_TARGET, value: p.target },
      { key: GATE_TENANT, value: tenant },
    ],
    memo: { ...memo },
    ...gateUiText(input),
  };
}
