import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { prepareCreate } from '../../src/client/create-request';
import { validatePolicy } from '../../src/policy/reviewer-policy';
import { decideSignal, decideUpdate, getAuditQuery, getGateQuery } from '../../src/workflow/gate/messages';
import { type RunStack, useRunStack } from '../support/run-harness';
import { approvalOf } from '../support/gate-fixtures';

// Eligibility is enforced by the gate itself, so a decision signalled by another service
// (which never passes through the API) cannot skip the roles its request's rule names.

let client: Client;
let stack: RunStack;
useRunStack((c, s) => {
  client = c;
  stack = s;
});

const policy = validatePolicy(
  { rules: [{ action: 'refund.*', roles: ['finance'], min_approvals: 2 }] },
  'c'.repeat(64),
  'rules.yaml',
);

async function startGate() {
  const { requestId, input } = prepareCreate(
    {
      correlation_id: 'corr',
      trigger_event_id: `evt-${randomUUID()}`,
      action: 'refund.create',
      target: 'ch_1',
      summary: 'Refund 40 EUR',
      args: { charge: 'ch_1', amount: 4000 },
    },
    { agentId: 'agent-1' },
    { policy },
  );
  const handle = await client.workflow.start('approvalGateWorkflow', {
    workflowId: requestId,
    taskQueue: stack.worker.taskQueue,
    args: [input],
  });
  return { handle, input };
}

const vote = (sha: string, reviewer: string, roles?: string[]) =>
  approvalOf(sha, { reviewer_id: reviewer, ...(roles ? { reviewer_roles: roles } : {}) });

describe('approvalGateWorkflow with reviewer roles', () => {
  it('refuses and audits a signalled decision without a needed role, and approves on two eligible reviewers', async () => {
    const { handle, input } = await startGate();
    const sha = input.payload_sha256;
    await handle.signal(decideSignal, vote(sha, 'svc-without-roles'));
    await handle.signal(decideSignal, vote(sha, 'bob', ['engineering']));
    const refusedByUpdate = await handle
      .executeUpdate(decideUpdate, { args: [vote(sha, 'eve', ['support'])] })
      .catch((e: unknown) => e);
    expect(refusedByUpdate).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refusedByUpdate as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'IneligibleReviewer' });

    const first = await handle.executeUpdate(decideUpdate, { args: [vote(sha, 'alice', ['finance'])] });
    expect(first).toMatchObject({ status: 'requested', approvals: 1, approvals_required: 2 });
    const second = await handle.executeUpdate(decideUpdate, { args: [vote(sha, 'carol', ['finance'])] });
    expect(second).toMatchObject({ status: 'approved', approvals: 2 });

    const state = await handle.query(getGateQuery);
    expect(state.votes.map((v) => v.reviewer_id)).toEqual(['alice', 'carol']);
    const audit = await handle.query(getAuditQuery);
    const refused = audit.filter((e) => e.event_type === 'decision.refused');
    expect(refused.map((e) => [e.actor_id, (e.data as { refusal?: string }).refusal])).toEqual([
      ['svc-without-roles', 'IneligibleReviewer'],
      ['bob', 'IneligibleReviewer'],
    ]);
    const requested = audit.find((e) => e.event_type === 'approval.requested')!;
    expect((requested.data as { reviewer_policy?: unknown }).reviewer_policy).toEqual({
      rule: 'refund.*',
      roles: ['finance'],
      approvals_required: 2,
      policy_sha256: 'c'.repeat(64),
    });
  });
});
