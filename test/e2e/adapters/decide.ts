import { randomUUID } from 'node:crypto';
import type { ApiHarness } from '../api-harness';

/** A reviewer's decision as the tests send it; the payload hash is read from the gate. */
export type ReviewerDecision =
  | { decision: 'approve'; note?: string }
  | { decision: 'reject'; reason: string }
  | { decision: 'modify'; args: Record<string, unknown> };

/**
 * Waits until the gate `id` is open, checks it is still `requested`, and decides on it as
 * reviewer `rev-1` over HTTP. Returns the gate as the reviewer saw it (payload included).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function decideWhenOpen(h: ApiHarness, id: string, d: ReviewerDecision): Promise<any> {
  const seen = await h.waitFor(id, (b) => b.status === 'requested');
  const res = await h.decide(id, { ...d, payload_sha256: seen.payload_sha256 });
  if (res.status !== 200) throw new Error(`decision on ${id} refused: ${res.status} ${JSON.stringify(res.body)}`);
  return seen;
}

/** Resolves with 'pending' when `p` has not settled within `ms`. */
export function stillPending<T>(p: Promise<T>, ms: number): Promise<'pending' | 'settled'> {
  return Promise.race([
    p.then(
      () => 'settled' as const,
      () => 'settled' as const,
    ),
    new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms)),
  ]);
}

/**
 * The batch case of every adapter: gates `approved` and `rejected` (one model turn) are
 * both open before either is decided; after the approval alone `waiting` (the adapter's
 * call) is still pending, and `whilePending` checks what must not have happened yet;
 * then the rejection with `reason`.
 */
export async function approveOneRejectOne(
  h: ApiHarness,
  ids: { approved: string; rejected: string; reason: string },
  waiting: Promise<unknown>,
  whilePending: () => void = () => undefined,
): Promise<void> {
  await Promise.all([ids.approved, ids.rejected].map((id) => h.waitFor(id, (x) => x.status === 'requested')));
  await decideWhenOpen(h, ids.approved, { decision: 'approve' });
  expect(await stillPending(waiting, 1500)).toBe('pending');
  whilePending();
  await decideWhenOpen(h, ids.rejected, { decision: 'reject', reason: ids.reason });
}

/** The batch case's model turn: two gated refunds and one ungated lookup, with fresh call ids. */
export function batchTurn() {
  const [approved, rejected, ungated] = [1, 2, 3].map(() => `call_${randomUUID()}`) as [string, string, string];
  const args = {
    approved: { charge: 'ch_batch_a', amount: 10 },
    rejected: { charge: 'ch_batch_b', amount: 20 },
    ungated: { charge: 'ch_batch_c' },
  };
  const calls: [string, string, Record<string, unknown>][] = [
    [approved, 'refund', args.approved],
    [rejected, 'refund', args.rejected],
    [ungated, 'lookup', args.ungated],
  ];
  return { approved, rejected, ungated, args, calls, reason: 'over the daily limit' };
}

/** The gate ids of the batch's two gated refunds, from an adapter's `requestId(tool, callId, args)`. */
export function batchGateIds(
  batch: ReturnType<typeof batchTurn>,
  requestId: (tool: string, callId: string, args: Record<string, unknown>) => string,
): { approved: string; rejected: string } {
  return {
    approved: requestId('refund', batch.approved, batch.args.approved),
    rejected: requestId('refund', batch.rejected, batch.args.rejected),
  };
}

/** After the batch: the lookup and the approved refund ran once each, and every call has exactly one result. */
export function expectBatchOutcome(
  batch: ReturnType<typeof batchTurn>,
  ran: { tool: string; input: unknown }[],
  results: Map<string, unknown[]>,
): void {
  expect(ran).toEqual(
    expect.arrayContaining([
      { tool: 'lookup', input: batch.args.ungated },
      { tool: 'refund', input: batch.args.approved },
    ]),
  );
  expect(ran).toHaveLength(2);
  for (const id of [batch.approved, batch.rejected, batch.ungated]) expect(results.get(id)).toHaveLength(1);
}
