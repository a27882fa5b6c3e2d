// The same change as patched.ts without patched(): a gate recorded before it completed where
// this code schedules an activity, so its replay fails with a determinism error.
import { proxyActivities } from '@temporalio/workflow';
import type { GateInput, GateState } from '../../../src/common/gate-state';
import { approvalGateWorkflow as released } from '../../../src/workflow/gate/approval-gate';
import type { ExampleActivities } from './activities';

const { notifyRequester } = proxyActivities<ExampleActivities>({ startToCloseTimeout: '1m' });

export async function approvalGateWorkflow(input: GateInput): Promise<GateState> {
  const state = await released(input);
  await notifyRequester(state.request_id, state.status);
  return state;
}
