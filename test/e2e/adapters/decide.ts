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
