import { brandErrorClass, ModelError, UnavailableError } from '../../common/errors';

export { ModelError };

/**
 * A provider that could not answer now (HTTP 408, 429, 5xx, a network error, a timeout, a
 * body that is not JSON). Retryable: its `name` becomes the activity's failure type, so a
 * run that gives up after the retries names `ModelUnavailable`, not a generic error.
 */
export class ModelUnavailable extends UnavailableError {
  /** HTTP status from the provider, when there was one. */
  readonly status?: number;

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options);
    this.status = options.status;
  }
}
brandErrorClass(ModelUnavailable, 'ModelUnavailable');

/** The scripted model has no turn left for this call: the script is shorter than the run. */
export class ModelExhausted extends ModelError {}
brandErrorClass(ModelExhausted, 'ModelExhausted');
