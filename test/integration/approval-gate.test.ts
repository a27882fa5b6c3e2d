import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { payloadSha256, type EvidencePayload } from '../../src/common/evidence';
import type { GateInput, GateState } from '../../src/common/gate-state';
import { digest } from '../../src/common/hashing';
import {
  consumeUpdate,
  decideSignal,
  decideUpdate,
  getAuditQuery,
  getGateQuery,
} from '../../src/workflow/gate/messages';
import { GateClient } from '../../src/client/gate-client';
import { type RunStack, useRunStack } from '../support/run-harness';
import { approvalOf, gateInputFor } from '../support/gate-fixtures';
import { waitFor } from '../support/wait';

let client: Client;
let stack: RunStack;
useRunStack((c, s) => {
  client = c;
  stack = s;
});

function input(over: Partial<GateInput> = {}, ttlMs = 600_000): GateInput {
  const id = `appr_${randomUUID().slice(0, 12)}`;
  const payload: EvidencePayload = {
    request_id: id,
    correlation_id: 'corr',
    agent_id: 'agent-1',
    trigger_event_id: id,
    action: 'refund.create',
    target: 'ch_1',
    summary: 'Refund 14,500 cents',
    blast_radius: { amount_cents: 14500 },
    args: { charge: 'ch_1', amount: 14500 },
    preconditions: {},
    idempotency_key: id,
    expires_at: new Date(Date.now() + ttlMs).toISOString(),
  };
  return gateInputFor(payload, over);
}

async function start(i: GateInput) {
  return client.workflow.start('approvalGateWorkflow', {
    workflowId: i.payload.request_id,
    taskQueue: stack.worker.taskQueue,
    args: [i],
  });
}

describe('approvalGateWorkflow', () => {
  it('applies one decision id once, whether it arrives by signal, by update, or both', async () => {
    const i = input();
    const h = await start(i);
    const d = approvalOf(i, { decision_id: 'dec-1' });
    await h.signal(decideSignal, d);
    await waitFor('the approval by signal', async () => (await h.query(getGateQuery)).status === 'approved'); // the signal landed first
    const again = await h.executeUpdate(decideUpdate, { args: [d], updateId: 'other-update-id' });
    expect(again).toMatchObject({ decision_id: 'dec-1', status: 'approved', applied: false });
    const audit = await h.query(getAuditQuery);
    expect(audit.filter((e) => e.event_type === 'approval.approved')).toHaveLength(1);
    expect(audit.filter((e) => e.event_type === 'decision.refused')).toHaveLength(0);
  });

  it('starts the trail with approval.requested even when the decision arrives with the start', async () => {
    const i = input();
    const h = await client.workflow.signalWithStart('approvalGateWorkflow', {
      workflowId: i.payload.request_id,
      taskQueue: stack.worker.taskQueue,
      args: [i],
      signal: decideSignal,
      signalArgs: [approvalOf(i)],
    });
    await waitFor('the approval', async () => (await h.query(getGateQuery)).status === 'approved');
    const types = (await h.query(getAuditQuery)).map((e) => e.event_type);
    expect(types).toEqual(['approval.requested', 'approval.approved']);
  });

  it('refuses a self-approval and a wrong hash by update, and audits a refused signal visibly', async () => {
    const i = input();
    const h = await start(i);
    const reason = (p: Promise<unknown>) =>
      p.then(
        () => 'accepted',
        (e: Error) => (e.cause as { type?: string }).type,
      );
    expect(await reason(h.executeUpdate(decideUpdate, { args: [{ ...approvalOf(i), reviewer_id: 'agent-1' }] }))).toBe(
      'SelfApproval',
    );
    expect(
      await reason(h.executeUpdate(decideUpdate, { args: [{ ...approvalOf(i), payload_sha256: '0'.repeat(64) }] })),
    ).toBe('HashMismatch');
    expect(
      await reason(h.executeUpdate(decideUpdate, { args: [{ ...approvalOf(i), decision: 'Approve' as 'approve' }] })),
    ).toBe('InvalidInput');
    await h.signal(decideSignal, { ...approvalOf(i), payload_sha256: 'f'.repeat(64) });
    await waitFor('a refused decision in the trail', async () =>
      (await h.query(getAuditQuery)).some((e) => e.event_type === 'decision.refused'),
    );
    const refused = (await h.query(getAuditQuery)).find((e) => e.event_type === 'decision.refused')!;
    expect(refused.data).toMatchObject({ refusal: 'HashMismatch' });
    expect((await h.query(getGateQuery)).status).toBe('requested');
  });

  it('sends an escalation notice before expiry, then expires when no decision arrives by the deadline', async () => {
    const i = input({ escalate_before_seconds: 2 }, 3500);
    const h = await start(i);
    const final: GateState = await h.result();
    expect(final.status).toBe('expired');
    const types = (await h.query(getAuditQuery)).map((e) => e.event_type);
    expect(types).toEqual(['approval.requested', 'approval.escalated', 'approval.expired']);
    const late = await h.executeUpdate(decideUpdate, { args: [approvalOf(i)] }).then(
      () => 'accepted',
      () => 'refused',
    );
    expect(late).toBe('refused');
  });

  it('refuses a malformed decision signal visibly and stays healthy', async () => {
    const i = input();
    const h = await start(i);
    await h.signal('decide', null);
    await h.signal('decide', { decision: 'approve' });
    await h.signal('cancel', null);
    await h.signal(decideSignal, { ...approvalOf(i), request_id: 'appr_other' });
    await waitFor(
      'four refused decisions in the trail',
      async () => (await h.query(getAuditQuery)).filter((e) => e.event_type === 'decision.refused').length === 4,
    );
    await h.executeUpdate(decideUpdate, { args: [approvalOf(i)] });
    expect((await h.query(getGateQuery)).status).toBe('approved');
  });

  it('records at most 100 refusals from a flood of bad messages, counts the rest, and still takes a decision', async () => {
    const i = input();
    const h = await start(i);
    const { recordRefusalSignal } = await import('../../src/workflow/gate/messages');
    // Refusals by every path share one cap: bad decide and cancel signals, and those the API reports.
    for (let n = 0; n < 50; n++) await h.signal('decide', { decision: 'approve', n });
    for (let n = 0; n < 40; n++) await h.signal('cancel', { actor_id: 'agent-2', actor_type: 'agent' });
    for (let n = 0; n < 40; n++)
      await h.signal(recordRefusalSignal, {
        decision_id: `d${n}`,
        reviewer_id: 'rev-x',
        decision: 'approve',
        refusal: 'HashMismatch',
        message: 'wrong hash',
      });
    await waitFor('30 unrecorded refusals', async () => (await h.query(getGateQuery)).refusals_unrecorded === 30);
    expect((await h.query(getAuditQuery)).filter((e) => e.event_type === 'decision.refused')).toHaveLength(100);
    await h.executeUpdate(decideUpdate, { args: [approvalOf(i)] });
    expect((await h.query(getGateQuery)).status).toBe('approved');
  });

  it('expires an approval nobody consumes before the consume deadline', async () => {
    const i = input({ consume_ttl_seconds: 1 });
    const h = await start(i);
    await h.executeUpdate(decideUpdate, { args: [approvalOf(i)] });
    const final: GateState = await h.result();
    expect(final.status).toBe('expired');
    expect(final.status_reason).toMatch(/consume deadline/);
  });

  it('hands the approved args to the requesting agent exactly once', async () => {
    const i = input();
    const h = await start(i);
    await h.executeUpdate(decideUpdate, { args: [approvalOf(i)] });
    const wrong = await h.executeUpdate(consumeUpdate, { args: [{ consumer_id: 'agent-2' }] }).then(
      () => 'accepted',
      (e: Error) => (e.cause as { type?: string }).type,
    );
    expect(wrong).toBe('NotRequester');
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => h.executeUpdate(consumeUpdate, { args: [{ consumer_id: 'agent-1' }] })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    expect(ok).toHaveLength(1);
    expect((ok[0] as PromiseFulfilledResult<{ args: unknown }>).value.args).toEqual(i.payload.args);
    expect((await h.result()).status).toBe('consumed');
  });
});

/** Starts a tool gate on `taskQueue`, approves it by update and waits for its end. */
async function approvedToolGate(taskQueue: string) {
  const i = toolGateInput();
  const h = await client.workflow.start('approvalGateWorkflow', {
    workflowId: i.payload.request_id,
    taskQueue,
    args: [i],
  });
  await h.executeUpdate(decideUpdate, { args: [approvalOf(i)] });
  const final: GateState = await h.result();
  return { h, final };
}

/** A `tool`-executor gate input whose snapshot names `book_slot` and the request's args. */
function toolGateInput(): GateInput {
  const base = input();
  const payload = {
    ...base.payload,
    snapshot: {
      tool: 'book_slot',
      args_sha256: digest(base.payload.args),
      result_version: 1,
      result_sha256: 'a'.repeat(64),
      validation_sha256: 'b'.repeat(64),
    },
  };
  return {
    ...base,
    payload,
    payload_sha256: payloadSha256(payload),
    executor: 'tool',
    tool: { domain: 'test', session_id: 's1' },
  };
}

/**
 * A worker whose domain activities are the test's own; the store and webhooks do nothing.
 * Its domain cannot tell whether a key already ran (`recheckAndExecuteTool` answers
 * unsupported), so the gate re-checks with `recheckSnapshot` and then runs `executeTool`.
 */
async function stubWorker(domain: Record<string, (...args: never[]) => Promise<unknown>>) {
  const { startTestWorker } = await import('../support/temporal');
  return startTestWorker({
    recheckAndExecuteTool: async () => ({ unsupported: true }),
    recordAuditEvents: async () => ({ webhook_receivers: 0 }),
    deliverWebhooks: async () => ({ delivered: [] }),
    recheckSnapshot: async () => ({ ok: true }),
    reviseToolCall: async () => ({ ok: false, issues: [] }),
    executeTool: async () => ({ content: 'done' }),
    ...domain,
  });
}

describe('tool executor', () => {
  it('applies one modification once when it arrives by signal and by update while being validated', async () => {
    const slow = await stubWorker({
      reviseToolCall: async ({
        input: cur,
        patch,
      }: {
        input: Record<string, unknown>;
        patch: Record<string, unknown>;
      }) => {
        await new Promise((r) => setTimeout(r, 1000)); // the domain takes its time
        const next = { ...cur, ...patch };
        return {
          ok: true,
          input: next,
          snapshot: {
            tool: 'book_slot',
            args_sha256: digest(next),
            result_version: 2,
            result_sha256: 'a'.repeat(64),
            validation_sha256: 'b'.repeat(64),
          },
          approvals_required: 1,
          executed_values: patch,
          summary: 'x',
        };
      },
    });
    try {
      const i = toolGateInput();
      const h = await client.workflow.start('approvalGateWorkflow', {
        workflowId: i.payload.request_id,
        taskQueue: slow.taskQueue,
        args: [i],
      });
      const mod = {
        decision_id: 'mod-1',
        reviewer_id: 'rev-1',
        decision: 'modify' as const,
        payload_sha256: i.payload_sha256,
        args: { amount: 100 },
      };
      await h.signal(decideSignal, mod);
      await waitFor('the modification under validation', async () => (await h.query(getGateQuery)).busy); // the signal's modification is being validated
      const viaUpdate = await h.executeUpdate(decideUpdate, { args: [mod] });
      expect(viaUpdate).toMatchObject({ decision_id: 'mod-1', applied: false });
      const final: GateState = await h.result();
      expect(final.final_args).toMatchObject({ amount: 100 });
      const types = (await h.query(getAuditQuery)).map((e) => e.event_type);
      expect(types.filter((t) => t === 'approval.modified')).toHaveLength(1);
      expect(types).not.toContain('decision.refused');
    } finally {
      await slow.stop();
    }
  });

  it('fails closed when the snapshot cannot be re-checked: invalidated, nothing runs, the gate still ends', async () => {
    const { ApplicationFailure } = await import('@temporalio/common');
    let runs = 0;
    const blind = await stubWorker({
      recheckSnapshot: async () => {
        throw ApplicationFailure.create({ message: 'database is locked', nonRetryable: true });
      },
      executeTool: async () => {
        runs++;
        return { content: 'ran' };
      },
    });
    try {
      const { final } = await approvedToolGate(blind.taskQueue);
      expect(final.status).toBe('invalidated');
      expect(final.status_reason).toMatch(/could not verify the approved snapshot: database is locked/);
      expect(runs).toBe(0);
    } finally {
      await blind.stop();
    }
  });

  it('blocks the tool when the re-check inside its activity finds drift: invalidated, the tool never ran', async () => {
    let separate = 0;
    const drifting = await stubWorker({
      recheckAndExecuteTool: async () => ({
        ran: false,
        recheck: { ok: false, reason: 'the slot was taken', mismatches: ['result_version'] },
      }),
      recheckSnapshot: async () => (separate++, { ok: true }),
      executeTool: async () => (separate++, { content: 'ran' }),
    });
    try {
      const { h, final } = await approvedToolGate(drifting.taskQueue);
      expect(final).toMatchObject({ status: 'invalidated', status_reason: 'the slot was taken' });
      expect(final.execution).toBeUndefined();
      expect(separate).toBe(0); // one activity: no separate re-check, no separate tool run
      const types = (await h.query(getAuditQuery)).map((e) => e.event_type);
      expect(types).toEqual(['approval.requested', 'approval.approved', 'approval.invalidated']);
    } finally {
      await drifting.stop();
    }
  });

  it('records an error raised inside an approved tool as an execution failure, not a policy block', async () => {
    const { ApplicationFailure } = await import('@temporalio/common');
    let runs = 0;
    const failing = await stubWorker({
      executeTool: async () => {
        runs++;
        throw ApplicationFailure.create({
          type: 'ToolFailed',
          message: 'the booking system is closed',
          nonRetryable: true,
        });
      },
    });
    try {
      const { h, final } = await approvedToolGate(failing.taskQueue);
      expect(final.status).toBe('consumed');
      expect(final.execution).toMatchObject({ outcome: 'failure', error: 'the booking system is closed' });
      const types = (await h.query(getAuditQuery)).map((e) => e.event_type);
      expect(types).toEqual([
        'approval.requested',
        'approval.approved',
        'snapshot.verified',
        'approval.consumed',
        'tool.failed',
      ]);
      expect(runs).toBe(1); // ToolFailed is final: not retried
    } finally {
      await failing.stop();
    }
  });

  it('leaves a gate whose workflow was terminated while requested out of the requested queue', async () => {
    const gates = new GateClient(client, { taskQueue: stack.worker.taskQueue });
    const i = input();
    const h = await start(i);
    const id = i.payload.request_id;
    const queued = async (): Promise<boolean> =>
      (await gates.list({ status: 'requested', limit: 500 })).some((g) => g.request_id === id);
    await waitFor('the gate listed by its status', queued); // its first task set GateStatus
    await h.terminate('operator');
    // Closed with GateStatus still `requested`: no decision can reach it, so no reviewer should see it.
    await waitFor('the gate gone from the status list', async () => !(await queued()));
    expect((await gates.get(id)).status).toBe('requested'); // as the closed workflow's attributes say
  });
});
