import {
  brandErrorClass,
  ConfigurationError,
  isRetryableAnswer,
  RefusedError,
  UnavailableError,
} from '../common/errors';

/** Process exit codes of `gate` (docs/cli.md). */
export const ExitCode = {
  /** The command did what was asked. */
  Ok: 0,
  /** The server refused (any 4xx/5xx), could not be reached, or a check failed. */
  Refused: 1,
  /** Bad usage: unknown command, missing argument, malformed option value. */
  Usage: 2,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * An error the CLI reports itself; thrown as such, the operator's to fix (a taken key id).
 * Every CLI error below counts as one (`instanceof GateCliError`), each in its own group.
 */
export class GateCliError extends ConfigurationError {}
brandErrorClass(GateCliError, 'GateCliError');

/** The user called a command wrongly; exit code 2. */
export class UsageError extends GateCliError {}
brandErrorClass(UsageError, 'UsageError');

/** The gate API answered with a 4xx or 5xx; carries its `{ error: { code, message, details } }`. */
export class ApiError extends RefusedError {
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
brandErrorClass(ApiError, 'ApiError', GateCliError);

/** The gate API could not be reached at all (connection refused, DNS, timeout). */
export class UnreachableError extends UnavailableError {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach the gate API at ${url}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}
brandErrorClass(UnreachableError, 'UnreachableError', GateCliError);

/** A local check failed (for example a broken audit chain); exit code 1. */
export class CheckFailedError extends RefusedError {}
brandErrorClass(CheckFailedError, 'CheckFailedError', GateCliError);
