import { chainEvent, type AuditEvent } from './audit';
import { initialGateState } from './gate-state';
import type { AuditSpec, GateInput, GateState } from './gate-types';

/**
 * The identity of a gate's first audit event when its creator wrote it to the store
 * (`GateInput.requested_event`): the gate rebuilds the same event from its input, so the
 * store and the workflow's chain hold one event, byte for byte.
 */
export interface RequestedEventIds {
  event_id: string;
  timestamp: string;
}

/** What `approval.requested` records: the gate's first event, from its initial state. */
export function requestedSpec(state: GateState): AuditSpec {
  return {
    event_type: 'approval.requested',
    actor_type: 'agent',
    actor_id: state.payload.agent_id,
    note: state.payload.summary,
    data: {
      action: state.payload.action,
      target: state.payload.target,
      approvals_required: state.approvals_required,
      executor: state.executor,
      expires_at: state.expires_at,
      args_sha256: state.final_args_sha256,
      ...(state.payload.reviewer_policy ? { reviewer_policy: state.payload.reviewer_policy } : {}),
    },
  };
}

/** An audit event of one request's chain, with the ids and time given (the workflow's own, or the creator's). */
export function auditEventFor(
  prev: AuditEvent | undefined,
  request: { request_id: string; payload_sha256: string | null },
  spec: AuditSpec,
  ids: RequestedEventIds,
): AuditEvent {
  return chainEvent(prev, {
    event_id: ids.event_id,
    request_id: request.request_id,
    event_type: spec.event_type,
    actor_type: spec.actor_type,
    actor_id: spec.actor_id,
    payload_sha256: request.payload_sha256,
    note: spec.note ?? null,
    timestamp: ids.timestamp,
    data: spec.data ?? {},
  });
}

/** The `approval.requested` event a creator writes before the gate's first task runs. */
export function requestedEvent(input: GateInput, ids: RequestedEventIds): AuditEvent {
  const state = initialGateState(input, ids.timestamp);
  return auditEventFor(
    undefined,
    { request_id: state.request_id, payload_sha256: state.payload_sha256 },
    requestedSpec(state),
    ids,
  );
}
