import {
  isGrpcDeadlineError,
  isGrpcServiceError,
  ServiceError,
  QueryNotRegisteredError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { httpStatusFor } from '../core/failure-types';
import { GateError, snakeCase } from './gate-error';

const RESOURCE_EXHAUSTED = 8; // gRPC status codes
const UNAVAILABLE = 14;

/**
 * True when the server turned a call away for load: its cap on in-flight updates per
 * workflow (history.maxInFlightUpdates, RESOURCE_EXHAUSTED) or an update aborted while
 * the server was busy (UNAVAILABLE), both seen with 20+ concurrent decisions. Safe to
 * retry: decisions and consumes are deduplicated or refused by the gate itself.
 */
export function isTransientRejection(err: unknown): boolean {
  const grpc = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(grpc) && (grpc.code === RESOURCE_EXHAUSTED || grpc.code === UNAVAILABLE);
}

const NOT_FOUND = 5;

/** True when Temporal has no such workflow: the SDK's WorkflowNotFoundError, or a raw NOT_FOUND (as fetchHistory throws it). */
export function isWorkflowNotFound(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError) return true;
  const grpc = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(grpc) && grpc.code === NOT_FOUND;
}

/** What the client knows about a gate that may have closed: its final status, or nothing at all. */
export type Existence = { exists: false } | { exists: true; status: string; closed: boolean };

/**
 * Turns what Temporal threw into a GateError, or returns the error unchanged when it is
 * not one the gate explains (a bug or an outage: the API answers 500).
 *
 * - an update refused by its validator or handler: `httpStatusFor(failure.type)`;
 * - "not found": 404 when no such gate, but 409 naming the final status when the gate
 *   exists and has closed (a late approval after expiry is a conflict, not a miss);
 * - the server's in-flight limits still full after the caller's retries: 503 `gate_busy`;
 * - an update nobody accepted in time: 503, safe to retry with the same decision id.
 */
export async function explain(err: unknown, requestId: string, lookup: () => Promise<Existence>): Promise<unknown> {
  if (err instanceof GateError) return err;
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    const f = err.cause;
    // The SDK refuses an update the workflow has no handler for: the id names a workflow that is not a gate.
    if (/no registered handler for update/i.test(f.message)) return notFound(requestId);
    const details = Array.isArray(f.details) && f.details.length === 1 ? f.details[0] : (f.details ?? undefined);
    return new GateError(httpStatusFor(f.type), snakeCase(f.type ?? 'Error'), f.message, details);
  }
  if (err instanceof WorkflowNotFoundError) {
    const e = await lookup();
    if (!e.exists) return notFound(requestId);
    return closedConflict(requestId, e.status);
  }
  if (err instanceof QueryNotRegisteredError) return notFound(requestId); // a workflow, but not a gate
  if (isTransientRejection(err)) {
    return new GateError(
      503,
      'gate_busy',
      `${requestId} is taking too many calls at once; retry (a decision with the same decision_id is applied once)`,
    );
  }
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isGrpcDeadlineError(err)) {
    return new GateError(
      503,
      'gate_unavailable',
      `no worker answered for ${requestId} in time; retry (a decision with the same decision_id is applied once)`,
    );
  }
  return err;
}

/** 404 for a request id no gate has. */
export function notFound(requestId: string): GateError {
  return new GateError(404, 'not_found', `no approval request ${requestId}`);
}

/** 409 for a change sent to a gate that has finished. */
export function closedConflict(requestId: string, status: string): GateError {
  return new GateError(
    409,
    'illegal_transition',
    `request ${requestId} is ${status} and closed; it accepts no more changes`,
    { status, closed: true },
  );
}

/** True for a failure that only means "nobody answered in time / the worker is away". */
export function isUnanswered(err: unknown): boolean {
  return !(err instanceof WorkflowNotFoundError) && !(err instanceof QueryNotRegisteredError);
}
