/**
 * Every failure type a workflow, update or activity of approval-gate may throw.
 * The API maps each to one HTTP status (see `httpStatusFor`), so a refusal means
 * the same thing whichever front door it came through.
 *
 * This list is the wire catalogue: these names travel in Temporal histories and, snake-cased,
 * as the API's error codes, so they stay as they are. The error classes of ./errors.ts are
 * the in-process tree and never cross the wire (workflow code throws only ApplicationFailure).
 */
export const FailureType = {
  /** The request is in a state where this event is not allowed (HTTP 409). */
  IllegalTransition: 'IllegalTransition',
  /** The decision names another payload_sha256 than the request's (HTTP 409). */
  HashMismatch: 'HashMismatch',
  /** The reviewer already voted on this request (HTTP 409). */
  DuplicateReviewer: 'DuplicateReviewer',
  /** The requester tried to approve its own request (HTTP 403). */
  SelfApproval: 'SelfApproval',
  /** The reviewer has none of the roles the request's rule allows (HTTP 403). */
  IneligibleReviewer: 'IneligibleReviewer',
  /** Only the requesting agent may do this (HTTP 403). */
  NotRequester: 'NotRequester',
  /** The message does not match its schema (HTTP 422). */
  InvalidInput: 'InvalidInput',
  /** Modified args fail the tool's schema or domain validation (HTTP 422). */
  InvalidArgs: 'InvalidArgs',
  /** A decision id this reviewer already used for a different decision (HTTP 409). */
  DecisionIdReused: 'DecisionIdReused',
  /** A decision is being applied; try again (HTTP 409). */
  Busy: 'Busy',
  /** An interaction response that does not fit its interaction (HTTP 422). */
  InvalidResponse: 'InvalidResponse',
  /** No such interaction, or it was already answered (HTTP 409/404). */
  UnknownInteraction: 'UnknownInteraction',
  /** The conversation history is broken (a tool call without exactly one result). */
  BrokenConversation: 'BrokenConversation',
  /** The scripted model has no turn left for this call. */
  ModelExhausted: 'ModelExhausted',
  /** A model provider failed in a way retrying will not fix. */
  ModelError: 'ModelError',
  /** A model provider could not answer, after the model activity's retries (HTTP 408, 429, 5xx, network). */
  ModelUnavailable: 'ModelUnavailable',
  /** A tool declared a final refusal (`DomainToolError`): an execution failure, never a policy block. */
  ToolFailed: 'ToolFailed',
  /** A run used its max_turns model calls without a final answer. */
  TurnLimit: 'TurnLimit',
  /** A webhook receiver did not answer 2xx (retried). */
  WebhookDeliveryFailed: 'WebhookDeliveryFailed',
  /** Webhook URLs without a valid secret (not retried). */
  WebhookMisconfigured: 'WebhookMisconfigured',
  /** A notification channel refused a message or could not be reached (retried; NoticeFailureType in ./notice.ts). */
  NotificationDeliveryFailed: 'NotificationDeliveryFailed',
  /** A notification target whose channel the worker has not configured (not retried). */
  NotificationMisconfigured: 'NotificationMisconfigured',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

const STATUS: Record<FailureType, number> = {
  IllegalTransition: 409,
  HashMismatch: 409,
  DuplicateReviewer: 409,
  SelfApproval: 403,
  NotRequester: 403,
  IneligibleReviewer: 403,
  InvalidInput: 422,
  InvalidArgs: 422,
  Busy: 409,
  DecisionIdReused: 409,
  InvalidResponse: 422,
  UnknownInteraction: 409,
  BrokenConversation: 500,
  ModelExhausted: 500,
  ModelError: 502,
  ModelUnavailable: 502,
  ToolFailed: 500,
  TurnLimit: 500,
  WebhookDeliveryFailed: 502,
  WebhookMisconfigured: 500,
  NotificationDeliveryFailed: 502,
  NotificationMisconfigured: 500,
};

/** True for a failure type of this list (a refusal the gate made on purpose). */
export function isFailureType(type: string | undefined | null): type is FailureType {
  return !!type && Object.prototype.hasOwnProperty.call(STATUS, type);
}

/** HTTP status for a failure type; 500 for anything not in the list. */
export function httpStatusFor(type: string | undefined | null): number {
  if (type && Object.prototype.hasOwnProperty.call(STATUS, type)) return STATUS[type as FailureType];
  return 500;
}

/** A refusal computed by pure code, later thrown as an ApplicationFailure. */
export interface Refusal {
  type: FailureType;
  message: string;
  details?: unknown;
}
