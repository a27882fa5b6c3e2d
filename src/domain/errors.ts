/** Brand that survives two copies of this package in one process, where `instanceof` would not. */
const DOMAIN_TOOL_ERROR = Symbol.for('approval-gate.DomainToolError');

/**
 * A tool's own final refusal: the tool looked at its input and the store and declined
 * ("draft 7 does not exist", "already submitted"). Retrying sends the same input and gets
 * the same answer, so the activity reports it once as `ToolFailed` and the model is told.
 *
 * Anything else a tool throws (a lost database connection, a timeout, a bug) is not the
 * tool's verdict: the activity is retried, which is safe because tools are idempotent by key.
 */
export class DomainToolError extends Error {
  readonly [DOMAIN_TOOL_ERROR] = true;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** True for a DomainToolError (or a subclass), from this copy of the package or another. */
export function isDomainToolError(err: unknown): err is DomainToolError {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[DOMAIN_TOOL_ERROR] === true;
}
