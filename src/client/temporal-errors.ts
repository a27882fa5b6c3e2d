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
import { google } from '@temporalio/proto';
import { httpStatusFor } from '../common/failure-types';
import { GateError, snakeCase } from './gate-error';

const RESOURCE_EXHAUSTED = 8; // gRPC status codes
const FAILED_PRECONDITION = 9;
const UNAVAILABLE = 14;

/**
 * True when the server turned a call away without applying it, so that the same call may
 * simply be sent again: its cap on in-flight updates per workflow
 * (history.maxInFlightUpdates, RESOURCE_EXHAUSTED) or an update aborted while the server
 * was busy (UNAVAILABLE), both seen with 20+ concurrent decisions; or an update whose
 * workflow task failed before it was accepted (FAILED_PRECONDITION with the server's
 * `WorkflowNotReadyFailure`), seen when a decision met a gate handing over to its next
 * execution under a flood of signals: the task that carried both was refused for the
 * signals that arrived meanwhile, and the update with it. Safe to retry: decisions and
 * consumes are deduplicated or refused by the gate itself.
 */
export function isTransientRejection(err: unknown): boolean {
  const code = grpcCause(err)?.code;
  return code === RESOURCE_EXHAUSTED || code === UNAVAILABLE || isWorkflowNotReady(err);
}

/** The gRPC status error behind `err`: itself, or the cause the SDK's client wrapped it in. */
function grpcCause(err: unknown) {
  const grpc = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(grpc) ? grpc : undefined;
}

const WORKFLOW_NOT_READY = 'temporal.api.errordetails.v1.WorkflowNotReadyFailure';

/** The server's "workflow not ready" refusal: FAILED_PRECONDITION whose status details name WorkflowNotReadyFailure. */
function isWorkflowNotReady(err: unknown): boolean {
  const grpc = grpcCause(err);
  if (grpc?.code !== FAILED_PRECONDITION || typeof grpc.metadata?.get !== 'function') return false;
  const status = grpc.metadata.get('grpc-status-details-bin')[0];
  if (!(status instanceof Uint8Array)) return false;
  try {
    return google.rpc.Status.decode(status).details.some((d) => d.type_url?.endsWith(`/${WORKFLOW_NOT_READY}`));
  } catch {
    return false; // details that do not decode: not the refusal this looks for
  }
}

const NOT_FOUND = 5;

/** True when Temporal has no such workflow: the SDK's WorkflowNotFoundError, or a raw NOT_FOUND (as fetchHistory throws it). */
export function isWorkflowNotFound(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || grpcCause(err)?.code === NOT_FOUND;
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
 * - a gate whose workflow task kept failing through the caller's retries: 503 `gate_unavailable`;
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
  if (isWorkflowNotReady(err)) {
    return new GateError(
      503,
      'gate_unavailable',
      `${requestId} could not take the call: its workflow task failed (a worker error, or a hand-over to its next execution); retry (a decision with the same decision_id is applied once)`,
    );
  }
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
