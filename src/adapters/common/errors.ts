import {
  brandErrorClass,
  ConfigurationError,
  isRetryableAnswer,
  RefusedError,
  UnavailableError,
} from '../../common/errors';

/**
 * Errors the adapters raise. Every one carries the gate request id when there is one, so
 * a log line leads to `gate approvals show <id>`. Thrown as such, a GateAdapterError is
 * the caller's to fix (a transport naming the wrong agent, an interruption the adapter
 * cannot gate); the three below also count as one (`instanceof GateAdapterError`), each
 * in the group of who is at fault.
 */
export class GateAdapterError extends ConfigurationError {}
brandErrorClass(GateAdapterError, 'GateAdapterError');

/** The gate server refused a call (4xx/5xx): `status` and `code` are the API's. */
export class GateRequestError extends RefusedError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** Seconds the server asked to wait before the same call (its Retry-After), when it named them. */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }

  override get retryable(): boolean {
    return isRetryableAnswer(this.status, this.code);
  }
}
brandErrorClass(GateRequestError, 'GateRequestError', GateAdapterError);

/**
 * A create the server shed while its workers were behind (503 `gate_busy`): nothing was
 * started, so the same call with the same idempotency key is safe after `retryAfterS`.
 */
export function shedOf(err: unknown): { retryAfterS?: number } | undefined {
  if (!(err instanceof GateRequestError) || err.status !== 503 || err.code !== 'gate_busy') return undefined;
  const fromBody = (err.details as { retry_after_s?: unknown } | undefined)?.retry_after_s;
  const retryAfterS = err.retryAfterS ?? (typeof fromBody === 'number' ? fromBody : undefined);
  return retryAfterS === undefined ? {} : { retryAfterS };
}

/** The gate server could not be reached at all. */
export class GateUnreachableError extends UnavailableError {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`approval-gate at ${url} is unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}
brandErrorClass(GateUnreachableError, 'GateUnreachableError', GateAdapterError);

/**
 * A tool was about to run without a gate approval that is valid now (no gate for the
 * call, still pending, denied, expired or already used). Raised before any side effect.
 */
export class NotApprovedError extends RefusedError {
  constructor(
    readonly requestId: string,
    readonly status: string,
    message: string,
  ) {
    super(message);
  }
}
brandErrorClass(NotApprovedError, 'NotApprovedError', GateAdapterError);
