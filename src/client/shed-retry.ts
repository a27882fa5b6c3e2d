/** How long a refused create asks to wait, when a refusal is a shed create (503 `gate_busy`). */
export interface Shed {
  /** The server's Retry-After in seconds; absent when it named none. */
  retryAfterS?: number;
}

export interface ShedRetryOptions {
  /** Longest total wait before the last refusal is thrown (default 60 s). */
  maxWaitMs?: number;
  /** Longest single wait, whatever Retry-After says (default 30 s). */
  maxStepMs?: number;
  /** How to wait; tests pass a fake. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter in [0, 1); tests pass a constant. */
  random?: () => number;
}

/** Total wait of `retryShed` when its caller sets none. */
export const DEFAULT_SHED_WAIT_MS = 60_000;

/**
 * Runs `create` until the server takes it. A create answered 503 `gate_busy` was shed
 * before anything started, and one idempotency key opens at most one gate, so `create`
 * sends the same body with the same key again. Each wait is the server's Retry-After (1 s
 * when it named none), capped at `maxStepMs`, plus up to a fifth more at random so that
 * callers shed together do not all come back in the same instant; once the next wait would
 * pass `maxWaitMs` in all, the last refusal is thrown. Any other error is thrown at once.
 */
export async function retryShed<T>(
  create: () => Promise<T>,
  shedOf: (err: unknown) => Shed | undefined,
  options: ShedRetryOptions = {},
): Promise<T> {
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_SHED_WAIT_MS;
  const maxStepMs = options.maxStepMs ?? 30_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = options.random ?? Math.random;
  let waited = 0;
  for (;;) {
    try {
      return await create();
    } catch (err) {
      const shed = shedOf(err);
      if (!shed) throw err;
      const base = Math.min(maxStepMs, Math.max(1, shed.retryAfterS ?? 1) * 1000);
      const step = Math.round(base * (1 + 0.2 * random()));
      if (waited + step > maxWaitMs) throw err;
      waited += step;
      await sleep(step);
    }
  }
}

/** Reads an HTTP Retry-After header given in seconds (the API sends no dates); undefined when absent or not a number. */
export function retryAfterSeconds(header: string | null | undefined): number | undefined {
  if (!header || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}
