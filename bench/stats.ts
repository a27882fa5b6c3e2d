// The one percentile helper of the bench, and the timing primitives around it.

/** Nearest-rank percentile (p in 0..100) of `xs`; NaN for no samples. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** The median of a few per-round figures. */
export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** Milliseconds since an arbitrary origin, monotonic (latencies are differences of these). */
export const now = (): number => performance.now();

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `one(i)` for i = 0..n-1 with at most `c` in flight; resolves with the wall time
 * in ms. The first error stops new work and is rethrown once the in-flight ones settle.
 */
export async function runConcurrent(n: number, c: number, one: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  let failed: unknown;
  const t0 = now();
  await Promise.all(
    Array.from({ length: Math.min(c, n) }, async () => {
      while (next < n && failed === undefined) {
        const i = next++;
        try {
          await one(i);
        } catch (err) {
          failed ??= err;
        }
      }
    }),
  );
  if (failed !== undefined) throw failed;
  return now() - t0;
}

/**
 * The order two kinds take in round `r`: as given in even rounds, reversed in odd ones. A
 * server's cost per start grows with the executions it holds (the dev server's by about
 * half over 13,000 starts here), so a kind that always went second would always meet the
 * larger server.
 */
export function inTurn<T>(kinds: readonly [T, T], r: number): [T, T] {
  return r % 2 === 0 ? [kinds[0], kinds[1]] : [kinds[1], kinds[0]];
}
