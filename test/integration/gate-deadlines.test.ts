import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { prepareCreate } from '../../src/client/create-request';
import { startOptions } from '../../src/client/start-options';
import type { GateInput, GateState } from '../../src/common/gate-state';
import { consumeUpdate, decideUpdate, getGateQuery } from '../../src/workflow/gate/messages';
import { refundBody } from '../support/gate-fixtures';
import { waitFor } from '../support/wait';
import { type RunStack, useRunStack } from '../support/run-harness';

/**
 * The gate's deadlines run on timers it never cancels (src/workflow/gate/deadlines.ts): they
 * must still fail closed at the right moment, whichever of the TTL and the consume
 * deadline comes first, and a gate decided in time must start no timer beyond its TTL's.
 * Real timers of a few seconds: the time-skipping server is not available here.
 */
let client: Client;
let stack: RunStack;
useRunStack((c, s) => {
  client = c;
  stack = s;
});

/**
 * Opens a gate and waits for its first task's TTL timer, so a decision sent next finds the
 * gate waiting on it (a decision that joins the first task would leave no TTL timer to reuse).
 */
async function open(over: Record<string, unknown>): Promise<{ h: WorkflowHandle; input: GateInput }> {
  const { requestId, input } = prepareCreate(refundBody(`deadline-${randomUUID()}`, over), { agentId: 'agent-1' });
  const h = await client.workflow.start(
    'approvalGateWorkflow',
    startOptions(requestId, input, stack.worker.taskQueue, randomUUID()),
  );
  await waitFor('the TTL timer', async () => (await timers(h)).started > 0);
  return { h, input };
}

const approve = (h: WorkflowHandle, input: GateInput) =>
  h.executeUpdate(decideUpdate, {
    args: [
      { decision_id: randomUUID(), reviewer_id: 'rev-1', decision: 'approve', payload_sha256: input.payload_sha256 },
    ],
  });

/** The history's timer events: started, fired and cancelled. */
async function timers(h: WorkflowHandle): Promise<{ started: number; fired: number; cancelled: number }> {
  const events = (await h.fetchHistory()).events ?? [];
  return {
    started: events.filter((e) => e.timerStartedEventAttributes).length,
    fired: events.filter((e) => e.timerFiredEventAttributes).length,
    cancelled: events.filter((e) => e.timerCanceledEventAttributes).length,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('gate deadlines', () => {
  it('starts one timer for a gate approved and consumed within its TTL, and cancels none', async () => {
    const { h, input } = await open({ ttl_seconds: 600 });
    await approve(h, input);
    await h.executeUpdate(consumeUpdate, { args: [{ consumer_id: 'agent-1' }] });
    expect(((await h.result()) as GateState).status).toBe('consumed');
    expect(await timers(h)).toEqual({ started: 1, fired: 0, cancelled: 0 });
  });

  it('keeps an approval past the TTL while its consume deadline, which comes later, has not passed', async () => {
    const { h, input } = await open({ ttl_seconds: 3, consume_ttl_seconds: 30 });
    await approve(h, input);
    await sleep(4000); // the TTL's timer fires while the gate waits for its consume
    expect((await h.query(getGateQuery)).status).toBe('approved');
    const consumed = await h.executeUpdate(consumeUpdate, { args: [{ consumer_id: 'agent-1' }] });
    expect(consumed.args).toEqual(input.payload.args);
    expect(((await h.result()) as GateState).status).toBe('consumed');
    // The TTL's timer woke the wait, which armed one for the rest of the consume window.
    expect(await timers(h)).toEqual({ started: 2, fired: 1, cancelled: 0 });
  });

  it('expires an approval at its consume deadline when that comes after the TTL', async () => {
    const { h, input } = await open({ ttl_seconds: 3, consume_ttl_seconds: 6 });
    await approve(h, input);
    const final = (await h.result()) as GateState;
    expect(final.status).toBe('expired');
    expect(final.status_reason).toMatch(/consume deadline/);
    // Expired by the consume deadline's timer (workflow time), not by the TTL's, which fired seconds earlier.
    expect(Date.parse(final.updated_at)).toBeGreaterThanOrEqual(Date.parse(final.consume_deadline!));
    expect(Date.parse(final.consume_deadline!) - Date.parse(input.payload.expires_at)).toBeGreaterThan(2000);
    expect(await timers(h)).toEqual({ started: 2, fired: 2, cancelled: 0 });
  });

  it('expires an approval at a consume deadline that comes before the TTL', async () => {
    const { h, input } = await open({ ttl_seconds: 600, consume_ttl_seconds: 1 });
    await approve(h, input);
    const final = (await h.result()) as GateState;
    expect(final.status).toBe('expired');
    expect(final.status_reason).toMatch(/consume deadline/);
    expect(Date.parse(final.updated_at)).toBeLessThan(Date.parse(input.payload.expires_at));
    // The TTL's timer is left running (Temporal drops it with the closed workflow); an earlier one ends the wait.
    expect(await timers(h)).toEqual({ started: 2, fired: 1, cancelled: 0 });
  });

  it('expires an undecided gate at its TTL, fail closed', async () => {
    const { h, input } = await open({ ttl_seconds: 3 });
    const final = (await h.result()) as GateState;
    expect(final.status).toBe('expired');
    expect(Date.parse(final.updated_at)).toBeGreaterThanOrEqual(Date.parse(input.payload.expires_at));
    await expect(approve(h, input)).rejects.toThrow();
    expect(await timers(h)).toEqual({ started: 1, fired: 1, cancelled: 0 });
  });
});
