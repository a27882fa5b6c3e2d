// The gate workflow with one change made after 0.1.0, guarded as docs/upgrading.md asks: once
// the gate has ended it schedules one more activity. A history recorded before the change has
// no 'example-change' marker, so on replay patched() answers false there and the history
// replays as recorded; a gate started on this code records the marker and takes the new branch.
import { patched, proxyActivities } from '@temporalio/workflow';
import type { GateInput, GateState } from '../../../src/common/gate-state';
import { approvalGateWorkflow as released } from '../../../src/workflow/gate/approval-gate';
import type { ExampleActivities } from './activities';

const { notifyRequester } = proxyActivities<ExampleActivities>({ startToCloseTimeout: '1m' });

export async function approvalGateWorkflow(input: GateInput): Promise<GateState> {
  const state = await released(input);
  if (patched('example-change')) await notifyRequester(state.request_id, state.status);
  return state;
}
