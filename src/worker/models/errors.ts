/**
 * A provider that could not answer now (HTTP 408, 429, 5xx, a network error, a timeout, a
 * body that is not JSON). Retryable: its `name` becomes the activity's failure type, so a
 * run that gives up after the retries names `ModelUnavailable`, not a generic error.
 */
export class ModelUnavailable extends Error {
  readonly retryable = true;
  /** HTTP status from the provider, when there was one. */
  readonly status?: number;

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
  }
}

/**
 * Model failures that retrying will not fix. The `name` is the Temporal failure type an
 * activity reports (`ModelError`, `ModelExhausted`, matching `FailureType`), so the
 * model activity can list them as non-retryable. A retryable provider failure (HTTP 429,
 * 5xx, a network error) is a `ModelUnavailable`.
 */
export class ModelError extends Error {
  /** Always false: a retry sends the same request and gets the same refusal. */
  readonly retryable = false;
  /** HTTP status from the provider, when there was one. */
  readonly status?: number;

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
  }
}

/** The scripted model has no turn left for this call: the script is shorter than the run. */
export class ModelExhausted extends ModelError {}
