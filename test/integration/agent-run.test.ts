import type { Client } from '@temporalio/client';
import { getAuditQuery, getGateQuery } from '../../src/workflow/gate/messages';
import { AuditStore } from '../../src/store/audit-store';
import { respondInteractionUpdate, type RunView } from '../../src/workflow/agent-run/messages';
import type { ToolMessage } from '../../src/common/conversation';
import {
  decidePending,
  draftAndValidate,
  startRun,
  type RunStack,
  useRunStack,
  submissionsOf,
  waitForRun,
} from '../support/run-harness';

let client: Client;
let stack: RunStack;
useRunStack((c, s) => {
  client = c;
  stack = s;
});
const done = (v: RunView) => ['completed', 'failed', 'cancelled'].includes(v.status);
const toolMessages = (v: RunView): ToolMessage[] => v.messages.filter((m): m is ToolMessage => m.role === 'tool');

const submit = (id = 'c3') => ({ content: '', tool_calls: [{ id, name: 'submit_trip_request', args: {} }] });

describe('agentRun', () => {
  it('answers a read-only question without any approval', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      { content: '', tool_calls: [{ id: 'q1', name: 'search_trip_policy', args: { query: 'budget limits' } }] },
      { content: 'Policy says: {{result:q1}}' },
    ]);
    const v = await waitForRun(client, runId, done);
    expect(v.status).toBe('completed');
    expect(toolMessages(v)).toEqual([expect.objectContaining({ tool_call_id: 'q1', outcome: 'success' })]);
    expect(v.final_answer).toContain(toolMessages(v)[0]!.content);
  });

  it('submits the approved 800,000 KRW trip exactly once', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      ...draftAndValidate(800000),
      submit(),
      { content: 'Submitted, budget {{value:c3.budget}} KRW.' },
    ]);
    await decidePending(client, runId, { decision: 'approve' });
    const v = await waitForRun(client, runId, done);
    expect(v.status).toBe('completed');
    expect(toolMessages(v).find((m) => m.tool_call_id === 'c3')?.outcome).toBe('success');
    expect(v.final_answer).toBe('Submitted, budget 800,000 KRW.');
    const subs = await submissionsOf(stack.db, runId);
    expect(subs).toHaveLength(1);
    expect(subs[0]!.budget).toBe(800000);
  });

  it('runs a modified call with the reviewer values, rewrites the recorded call and reports the executed values', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      ...draftAndValidate(800000),
      submit(),
      { content: 'Submitted, budget {{value:c3.budget}} KRW.' },
    ]);
    await decidePending(client, runId, { decision: 'modify', args: { budget: 500000 } });
    const v = await waitForRun(client, runId, done);
    const result = toolMessages(v).find((m) => m.tool_call_id === 'c3')!;
    expect(result.outcome).toBe('success');
    expect(result.content).toMatch(/500,?000/);
    expect(result.content).toMatch(/modified/i);
    expect(v.final_answer).toBe('Submitted, budget 500,000 KRW.');
    const subs = await submissionsOf(stack.db, runId);
    expect(subs.map((s) => s.budget)).toEqual([500000]);
    // The recorded call now names the reviewed draft (valid against the tool's schema), not the model's first proposal.
    const call = v.messages.flatMap((m) => ('tool_calls' in m && m.tool_calls) || []).find((c) => c.id === 'c3')!;
    const firstDraft = toolMessages(v).find((m) => m.tool_call_id === 'c1')!.values!.draft_id;
    expect(call.args).toEqual({ draft_id: subs[0]!.draft_id });
    expect(subs[0]!.draft_id).not.toBe(firstDraft);
  });

  it("needs the stricter tier's approvals when a modification raises the amount", async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      ...draftAndValidate(800000),
      submit(),
      { content: 'Submitted, budget {{value:c3.budget}} KRW.' },
    ]);
    const requestId = await decidePending(
      client,
      runId,
      { decision: 'modify', args: { budget: 2500000, days: 3 } },
      'rev-1',
    );
    const gate = client.workflow.getHandle(requestId);
    const mid = await gate.query(getGateQuery);
    expect(mid).toMatchObject({
      status: 'requested',
      approvals_required: 2,
      votes: [expect.objectContaining({ reviewer_id: 'rev-1', decision: 'modify' })],
    });
    expect(await submissionsOf(stack.db, runId)).toHaveLength(0);
    await decidePending(client, runId, { decision: 'approve' }, 'rev-2');
    const v = await waitForRun(client, runId, done);
    expect(v.final_answer).toBe('Submitted, budget 2,500,000 KRW.');
    expect((await submissionsOf(stack.db, runId)).map((s) => [s.days, s.budget])).toEqual([[3, 2500000]]);
  });

  it('refuses an invalid modification and runs nothing', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      ...draftAndValidate(800000),
      submit(),
      { content: 'done' },
    ]);
    const refusal = (args: Record<string, unknown>) =>
      decidePending(client, runId, { decision: 'modify', args }).then(
        () => 'accepted',
        (e: Error) => (e.cause as { type?: string }).type,
      );
    expect(await refusal({ budget: 'lots' })).toBe('InvalidArgs');
    expect(await refusal({ days: 40 })).toBe('InvalidArgs');
    const v = await waitForRun(client, runId, (r) => r.pending_approvals.length > 0);
    expect(v.status).toBe('waiting_approval');
    expect(await submissionsOf(stack.db, runId)).toHaveLength(0);
    // Nothing was written for the refused modifications: the model's draft is still the only one.
    expect(await stack.db.query('SELECT draft_id FROM trip_drafts WHERE session_id = ?', [runId])).toHaveLength(1);
    await client.workflow.getHandle(runId).cancel();
  });

  it('sends a rejection reason to the model and blocks the same call without asking again', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      ...draftAndValidate(800000),
      submit(),
      submit('c4'),
      { content: 'Not submitted. {{result:c3}}' },
    ]);
    await decidePending(client, runId, { decision: 'reject', reason: 'the quarterly budget is used up' });
    const v = await waitForRun(client, runId, done);
    const [c3, c4] = ['c3', 'c4'].map((id) => toolMessages(v).find((m) => m.tool_call_id === id)!);
    expect(c3!.outcome).toBe('denied');
    expect(c3!.content).toContain('the quarterly budget is used up');
    expect(c4!.outcome).toBe('blocked');
    expect(v.final_answer).toContain('the quarterly budget is used up');
    expect(await submissionsOf(stack.db, runId)).toHaveLength(0);
  });

  it('opens a new request for a changed plan after a denial', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      ...draftAndValidate(800000),
      submit(),
      {
        content: '',
        tool_calls: [{ id: 'd2', name: 'draft_trip_request', args: { destination: 'Busan', days: 2, budget: 500000 } }],
      },
      { content: '', tool_calls: [{ id: 'v2', name: 'validate_trip_request', args: {} }] },
      submit('c4'),
      { content: 'Submitted, budget {{value:c4.budget}} KRW.' },
    ]);
    const first = await decidePending(client, runId, { decision: 'reject', reason: 'too expensive' });
    await waitForRun(
      client,
      runId,
      (r) => r.pending_approvals.length > 0 && r.pending_approvals[0]!.request_id !== first,
    );
    await decidePending(client, runId, { decision: 'approve' });
    const v = await waitForRun(client, runId, done);
    expect(Object.fromEntries(toolMessages(v).map((m) => [m.tool_call_id, m.outcome]))).toMatchObject({
      c3: 'denied',
      c4: 'success',
    });
    expect((await submissionsOf(stack.db, runId)).map((s) => s.budget)).toEqual([500000]);
  });

  it('runs the read-only call at once, waits for the risky one, and shows the model both results in call order', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      ...draftAndValidate(800000),
      {
        content: '',
        tool_calls: [
          { id: 's1', name: 'search_trip_policy', args: { query: 'approvals' } },
          { id: 's2', name: 'submit_trip_request', args: {} },
        ],
      },
      { content: 'ok' },
    ]);
    const waiting = await waitForRun(client, runId, (r) => r.pending_approvals.length > 0);
    // Barrier: while s2 waits, s1's result is not in the conversation yet, although s1 already ran.
    expect(toolMessages(waiting).map((m) => m.tool_call_id)).toEqual(['c1', 'c2']);
    const audit = new AuditStore(stack.db);
    const ranEarly = async () =>
      (await audit.list(runId)).some(
        (e) => e.event_type === 'tool.result' && e.data.call_id === 's1' && e.data.outcome === 'success',
      );
    for (let i = 0; i < 50 && !(await ranEarly()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await ranEarly()).toBe(true);
    expect((await waitForRun(client, runId, (r) => r.pending_approvals.length > 0)).status).toBe('waiting_approval');
    await decidePending(client, runId, { decision: 'approve' });
    const v = await waitForRun(client, runId, done);
    expect(toolMessages(v).map((m) => `${m.tool_call_id}:${m.outcome}`)).toEqual([
      'c1:success',
      'c2:success',
      's1:success',
      's2:success',
    ]);
  });

  it('reports expiry, unknown tools, invalid args, blocked and failed calls each exactly once', async () => {
    const runId = await startRun(
      client,
      stack.worker.taskQueue,
      [
        {
          content: '',
          tool_calls: [
            { id: 'v0', name: 'validate_trip_request', args: {} },
            { id: 'u1', name: 'book_hotel', args: {} },
            { id: 'i1', name: 'draft_trip_request', args: { destination: 'Busan', days: 'two' } },
            { id: 'b1', name: 'submit_trip_request', args: {} },
          ],
        },
        ...draftAndValidate(800000),
        submit('e1'),
        { content: 'end' },
      ],
      { approval_ttl_seconds: 2 },
    );
    const v = await waitForRun(client, runId, done);
    const outcomes = Object.fromEntries(toolMessages(v).map((m) => [m.tool_call_id, m.outcome]));
    expect(outcomes).toEqual({
      v0: 'failure',
      u1: 'unknown_tool',
      i1: 'invalid_args',
      b1: 'blocked',
      c1: 'success',
      c2: 'success',
      e1: 'expired',
    });
    expect(toolMessages(v)).toHaveLength(7);
  });

  it('ends invalidated, not failed, when the draft changes after approval and before execution', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      ...draftAndValidate(2500000, 3),
      submit(),
      { content: 'end' },
    ]);
    // Two approvers needed above 2,000,000: the first approval lands, then the draft drifts, then the second.
    const requestId = await decidePending(client, runId, { decision: 'approve' }, 'rev-1');
    const adapter = (await import('../../examples/trip')).createTripDomain(stack.db);
    await adapter.execute(
      runId,
      'draft_trip_request',
      { destination: 'Jeju', days: 3, budget: 2500000 },
      `${runId}:drift`,
    );
    await decidePending(client, runId, { decision: 'approve' }, 'rev-2');
    const v = await waitForRun(client, runId, done);
    expect(toolMessages(v).find((m) => m.tool_call_id === 'c3')?.outcome).toBe('invalidated');
    const gate = await client.workflow.getHandle(requestId).query(getGateQuery);
    expect(gate.status).toBe('invalidated');
    expect(gate.execution).toBeUndefined();
    expect(await submissionsOf(stack.db, runId)).toHaveLength(0);
    // A policy block in the audit, never an execution failure.
    const gateTrail = (await client.workflow.getHandle(requestId).query(getAuditQuery)).map((e) => e.event_type);
    expect(gateTrail).toContain('approval.invalidated');
    expect(gateTrail).not.toContain('tool.failed');
    expect(gateTrail).not.toContain('approval.consumed');
    const runTrail = await new AuditStore(stack.db).list(runId);
    expect(
      runTrail.filter((e) => e.data.call_id === 'c3').map((e) => `${e.event_type}:${String(e.data.outcome)}`),
    ).toEqual(['policy.blocked:invalidated']);
  });

  it('pauses on a structured interaction until a response that fits arrives', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      {
        content: '',
        tool_calls: [
          {
            id: 'a1',
            name: 'ask_user',
            args: {
              type: 'SELECT',
              target: 'destination',
              prompt: 'Where to?',
              options: ['Busan', 'Jeju'],
              required: true,
            },
          },
        ],
      },
      { content: 'You chose {{value:a1.value}}' },
    ]);
    const v1 = await waitForRun(client, runId, (r) => r.pending_interactions.length > 0);
    expect(v1.status).toBe('waiting_interaction');
    const id = v1.pending_interactions[0]!.id;
    const h = client.workflow.getHandle(runId);
    const refusal = (value: string | null) =>
      h.executeUpdate(respondInteractionUpdate, { args: [id, { value }] }).then(
        () => 'accepted',
        (e: Error) => String((e.cause as Error | undefined)?.message),
      );
    expect(await refusal('Seoul')).toMatch(/not one of the options/);
    expect(await refusal(null)).toMatch(/required/);
    await h.executeUpdate(respondInteractionUpdate, { args: [id, { value: 'Jeju' }] });
    const v = await waitForRun(client, runId, done);
    expect(v.final_answer).toBe('You chose Jeju');
  });

  it('asks again when a model reuses an interaction id, and refuses a stray argsFinalized signal', async () => {
    const ask = (id: string, type: string, extra: object = {}) => ({
      content: '',
      tool_calls: [
        {
          id,
          name: 'ask_user',
          args: { id: 'q', type, target: 'trip', prompt: `question ${id}`, required: true, ...extra },
        },
      ],
    });
    const runId = await startRun(client, stack.worker.taskQueue, [
      ask('a1', 'INPUT'),
      ask('a2', 'CONFIRM'),
      { content: '{{value:a1.value}} / {{value:a2.value}}' },
    ]);
    const h = client.workflow.getHandle(runId);
    await h.signal('argsFinalized', { call_id: 'nope', request_id: 'nope', args: {} });
    await h.signal('argsFinalized', null);
    const first = await waitForRun(client, runId, (r) => r.pending_interactions.length > 0);
    await h.executeUpdate(respondInteractionUpdate, { args: [first.pending_interactions[0]!.id, { value: 'Alice' }] });
    const second = await waitForRun(client, runId, (r) => r.pending_interactions.some((p) => p.type === 'CONFIRM'));
    expect(second.pending_interactions[0]!.id).not.toBe(first.pending_interactions[0]!.id);
    await h.executeUpdate(respondInteractionUpdate, { args: [second.pending_interactions[0]!.id, { value: true }] });
    const v = await waitForRun(client, runId, done);
    expect(v.final_answer).toBe('Alice / true');
    expect((await new AuditStore(stack.db).list(runId)).filter((e) => e.event_type === 'signal.refused')).toHaveLength(
      2,
    );
  });

  it('records at most 100 stray signals from a flood, counts the rest, and still finishes', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      {
        content: '',
        tool_calls: [{ id: 'a1', name: 'ask_user', args: { type: 'INPUT', target: 'trip', prompt: 'Where to?' } }],
      },
      { content: 'Going to {{value:a1.value}}' },
    ]);
    const h = client.workflow.getHandle(runId);
    for (let n = 0; n < 120; n++) await h.signal('argsFinalized', { call_id: `c${n}`, request_id: 'nope', args: {} });
    const waiting = await waitForRun(
      client,
      runId,
      (r) => r.refusals_unrecorded === 20 && r.pending_interactions.length > 0,
    );
    await h.executeUpdate(respondInteractionUpdate, { args: [waiting.pending_interactions[0]!.id, { value: 'Jeju' }] });
    expect((await waitForRun(client, runId, done)).final_answer).toBe('Going to Jeju');
    expect((await new AuditStore(stack.db).list(runId)).filter((e) => e.event_type === 'signal.refused')).toHaveLength(
      100,
    );
  });

  it('cancels pending gates when the run is cancelled, and a late decision is refused', async () => {
    const runId = await startRun(client, stack.worker.taskQueue, [
      ...draftAndValidate(800000),
      submit(),
      { content: 'end' },
    ]);
    const v = await waitForRun(client, runId, (r) => r.pending_approvals.length > 0);
    const requestId = v.pending_approvals[0]!.request_id;
    const gate = client.workflow.getHandle(requestId);
    const { payload_sha256 } = await gate.query(getGateQuery);
    await client.workflow.getHandle(runId).cancel();
    await waitForRun(client, runId, (r) => r.status === 'cancelled');
    expect((await gate.query(getGateQuery)).status).toBe('cancelled');
    // The `*.cancelled` events are written to the store even though they follow the cancel.
    const audit = new AuditStore(stack.db);
    await expect(gate.result()).resolves.toMatchObject({ status: 'cancelled' });
    expect((await audit.list(requestId)).map((e) => e.event_type)).toContain('approval.cancelled');
    // The run shows `cancelled` before its last write; it closes only once `run.cancelled` is in the store.
    await expect(client.workflow.getHandle(runId).result()).rejects.toThrow();
    expect((await audit.list(runId)).map((e) => e.event_type)).toContain('run.cancelled');
    const { decideUpdate } = await import('../../src/workflow/gate/messages');
    await expect(
      gate.executeUpdate(decideUpdate, {
        args: [{ decision_id: 'late', reviewer_id: 'rev-1', decision: 'approve', payload_sha256 }],
      }),
    ).rejects.toThrow();
    expect(await submissionsOf(stack.db, runId)).toHaveLength(0);
  });
});
