import type { z } from 'zod';
import { brandErrorClass, isRetryableAnswer, RefusedError } from '../common/errors';

/** One field-level problem in a refused input. `path` uses the `$.args.password` form of the secret scanner. */
export interface FieldProblem {
  path: string;
  message: string;
  code?: string;
}

/**
 * The one error the gate client and the API raise on purpose. `status` is the HTTP
 * status, `code` a stable snake_case word callers branch on (`illegal_transition`,
 * `hash_mismatch`, `not_found`, `idempotency_conflict`…), `details` the structured facts
 * (field problems, the gate's status). The API sends it as `{ error: { code, message, details? } }`.
 * A RefusedError whatever its status: a 5xx is still the gate's deliberate answer, and
 * `retryable` says whether to send the call again.
 */
export class GateError extends RefusedError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  override get retryable(): boolean {
    return isRetryableAnswer(this.status, this.code);
  }

  /** The wire form of docs/http-api.md, Errors. */
  toJSON(): { error: { code: string; message: string; details?: unknown } } {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

brandErrorClass(GateError, 'GateError');

/** `['args', 'items', 0]` -> `$.args.items[0]`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : `${acc}.${String(p)}`), '$');
}

/** A 422 naming every field zod refused, so a caller can fix all of them at once. */
export function invalidInput(what: string, error: z.ZodError): GateError {
  const details: FieldProblem[] = error.issues.map((i) => {
    const keys = i.code === 'unrecognized_keys' ? (i as { keys?: string[] }).keys : undefined;
    return { path: jsonPath(i.path), message: keys ? `unknown field(s): ${keys.join(', ')}` : i.message, code: i.code };
  });
  const first = details[0];
  const summary = first
    ? `${first.path}: ${first.message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`
    : 'invalid';
  return new GateError(422, 'invalid_request', `${what} is invalid: ${summary}`, details);
}

/** `IllegalTransition` -> `illegal_transition`: failure types as error codes. */
export function snakeCase(type: string): string {
  return type.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}
