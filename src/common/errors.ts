/**
 * The root of approval-gate's errors and the groups under it, one per party at fault, so
 * a caller can branch on what to do (fix, stop, retry) without knowing every class.
 * These are in-process errors only: workflow code throws ApplicationFailure with a type
 * from ./failure-types.ts, which is the wire catalogue. Pure: no Node, no Temporal.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ErrorClass = abstract new (...args: any[]) => Error;

/** The brand of each class branded by this copy of the module, for `families`. */
const brands = new WeakMap<ErrorClass, symbol>();

function carries(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * Brands an error class so that `instanceof` holds across two copies of this package in
 * one process (two versions in node_modules, a bundle beside a dependency), where the
 * prototype chain does not: the prototype carries `Symbol.for('approval-gate.<name>')`
 * and `instanceof` checks for it, as Temporal's SDK does for its own errors
 * (SymbolBasedInstanceOfError). `name` is passed, not read, so it survives a minifier.
 * Instances also count as each of `families` (branded first): how GateRequestError is a
 * RefusedError and still a GateAdapterError.
 */
export function brandErrorClass(clazz: ErrorClass, name: string, ...families: ErrorClass[]): void {
  const brand = Symbol.for(`approval-gate.${name}`);
  brands.set(clazz, brand);
  Object.defineProperty(clazz.prototype, brand, { value: true });
  for (const family of families) {
    const mark = brands.get(family);
    if (mark === undefined) throw new TypeError(`brand ${family.name} before ${name} names it as its family`);
    Object.defineProperty(clazz.prototype, mark, { value: true });
  }
  Object.defineProperty(clazz, Symbol.hasInstance, {
    value(this: unknown, value: unknown): boolean {
      // A subclass nobody branded (a user's own) inherits this method: it gets the ordinary prototype test.
      if (this !== clazz) return Function.prototype[Symbol.hasInstance].call(this, value);
      return carries(value, brand);
    },
  });
}

/** Whether an answer of the gate API may be sent again unchanged, later: 429, 503 and 409 `busy`. */
export function isRetryableAnswer(status: number, code: string): boolean {
  return status === 429 || status === 503 || code === 'busy';
}

/**
 * Every error approval-gate raises on purpose. Catch a group below rather than this,
 * unless all you need is "ours, not a bug": `name` is the concrete class, `retryable`
 * says whether the same call may succeed later.
 */
export abstract class ApprovalGateError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }

  /** True when the same call, sent again unchanged later, may succeed. */
  get retryable(): boolean {
    return false;
  }
}
brandErrorClass(ApprovalGateError, 'ApprovalGateError');

/**
 * The caller's or the operator's fault: how approval-gate is installed, configured or
 * called (a bad rule file, an unknown domain, a missing peer dependency, wrong CLI usage).
 * Retrying fails the same way; a person must change code, configuration or the command.
 */
export class ConfigurationError extends ApprovalGateError {}
brandErrorClass(ConfigurationError, 'ConfigurationError');

/**
 * approval-gate looked at a well-formed call and turned it away: an error answer of the
 * gate API (`status`, `code`), a tool call without a valid approval, a webhook delivery
 * that does not verify, a failed check. Do not repeat it unchanged; `retryable` is true
 * only for the API's answers that mean "not now" (429, 503, 409 `busy`).
 */
export class RefusedError extends ApprovalGateError {}
brandErrorClass(RefusedError, 'RefusedError');

/**
 * A service did not answer: Temporal, the gate's database, the gate API, a model
 * provider, a process being started. Nothing is known to have happened, so retry (with
 * the same idempotency key or decision id).
 */
export class UnavailableError extends ApprovalGateError {
  override get retryable(): boolean {
    return true;
  }
}
brandErrorClass(UnavailableError, 'UnavailableError');

/**
 * A tool's own final refusal: the tool looked at its input and the store and declined
 * ("draft 7 does not exist", "already submitted"). Retrying sends the same input and gets
 * the same answer, so the activity reports it once as `ToolFailed` and the model is told.
 *
 * Anything else a tool throws (a lost database connection, a timeout, a bug) is not the
 * tool's verdict: the activity is retried, which is safe because tools are idempotent by key.
 */
export class DomainToolError extends ApprovalGateError {}
brandErrorClass(DomainToolError, 'DomainToolError');

/** True for a DomainToolError (or a subclass), from this copy of the package or another. */
export function isDomainToolError(err: unknown): err is DomainToolError {
  return err instanceof DomainToolError;
}

/**
 * The model provider failed in a way retrying will not fix (a refused request, an answer
 * that cannot be used, a scripted model out of turns). The `name` is the Temporal failure
 * type the model activity reports (`ModelError`, `ModelExhausted`). A provider that could
 * not answer now is a `ModelUnavailable`, an UnavailableError.
 */
export class ModelError extends ApprovalGateError {
  /** HTTP status from the provider, when there was one. */
  readonly status?: number;

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options);
    this.status = options.status;
  }
}
brandErrorClass(ModelError, 'ModelError');
