/** Process exit codes of `gate` (DESIGN section 6). */
export const ExitCode = {
  /** The command did what was asked. */
  Ok: 0,
  /** The server refused (any 4xx/5xx), could not be reached, or a check failed. */
  Refused: 1,
  /** Bad usage: unknown command, missing argument, malformed option value. */
  Usage: 2,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Base of every error the CLI reports itself; `name` is the concrete class. */
export class GateCliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The user called a command wrongly; exit code 2. */
export class UsageError extends GateCliError {}

/** The gate API answered with a 4xx or 5xx; carries its `{ error: { code, message, details } }`. */
export class ApiError extends GateCliError {
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
}

/** The gate API could not be reached at all (connection refused, DNS, timeout). */
export class UnreachableError extends GateCliError {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach the gate API at ${url}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** A local check failed (for example a broken audit chain); exit code 1. */
export class CheckFailedError extends GateCliError {}
