/**
 * Errors the adapters raise, grouped by who is at fault. Every one carries the gate
 * request id when there is one, so a log line leads to `gate approvals show <id>`.
 */
export class GateAdapterError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The gate server refused a call (4xx/5xx): `status` and `code` are the API's. */
export class GateRequestError extends GateAdapterError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** The gate server could not be reached at all. */
export class GateUnreachableError extends GateAdapterError {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`approval-gate at ${url} is unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}

/**
 * A tool was about to run without a gate approval that is valid now (no gate for the
 * call, still pending, denied, expired or already used). Raised before any side effect.
 */
export class NotApprovedError extends GateAdapterError {
  constructor(
    readonly requestId: string,
    readonly status: string,
    message: string,
  ) {
    super(message);
  }
}
