/**
 * The gate's database did not answer: refused, dropped or shutting down. Nothing is
 * known to have been decided or written, so the caller may retry (`retryable`): the API
 * answers 503, and an activity leaves it to Temporal's retry policy.
 */
export class StoreUnavailableError extends Error {
  readonly retryable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

const NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);

/**
 * True for a lost or refused connection: Node's socket errors, SQLSTATE class 08
 * (connection exception) and 57P (operator intervention: admin or crash shutdown,
 * cannot connect now), and node-postgres's own connection messages.
 */
export function isConnectionError(err: unknown): boolean {
  if (err instanceof AggregateError) return err.errors.some(isConnectionError);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (NODE_CODES.has(code) || /^(08|57P)/.test(code))) return true;
  const message = err instanceof Error ? err.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|the database system is (starting up|shutting down)/i.test(
    message,
  );
}

/** Runs `op`, turning a connection error into StoreUnavailableError. */
export async function guarded<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof StoreUnavailableError || !isConnectionError(err)) throw err;
    throw new StoreUnavailableError(`the gate's PostgreSQL store did not answer: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
