import { brandErrorClass, UnavailableError } from '../common/errors';

/**
 * The gate's database did not answer: refused, dropped or shutting down. Nothing is
 * known to have been decided or written, so the caller may retry (`retryable`): the API
 * answers 503, and an activity leaves it to Temporal's retry policy.
 */
export class StoreUnavailableError extends UnavailableError {}
brandErrorClass(StoreUnavailableError, 'StoreUnavailableError');

const NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * True for a lost or refused connection: Node's socket errors, SQLSTATE class 08
 * (connection exception), 57P (operator intervention: admin or crash shutdown, cannot
 * connect now) and 53300 (too many connections, as while a restarted server fills up),
 * node-postgres's own connection messages (a client that ended, a pool that timed out
 * waiting to connect), and any of these as the `cause` of a wrapping error.
 */
export function isConnectionError(err: unknown, depth = 0): boolean {
  if (depth > 5) return false;
  if (err instanceof AggregateError) return err.errors.some((e) => isConnectionError(e, depth + 1));
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (NODE_CODES.has(code) || /^(08|57P|53300$)/.test(code))) return true;
  const message = err instanceof Error ? err.message : '';
  if (
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|the database system is (starting up|shutting down|not yet accepting connections|in recovery mode)/i.test(
      message,
    )
  )
    return true;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause !== undefined && isConnectionError(cause, depth + 1);
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
