// The package's public surface: schemas and helpers other services use to talk to
// approval-gate, the webhook verifier for receivers, and the clients.

export { verifyWebhook, WebhookVerificationError, signWebhook, generateWebhookSecret } from './webhooks';
export {
  CreateApprovalBody,
  EvidencePayload,
  Snapshot,
  payloadSha256,
  defaultIdempotencyKey,
  MAX_PAYLOAD_BYTES,
} from './core/evidence';
export { DecisionBody, DecisionMessage, DecisionWord } from './core/decision';
export type { DecisionResult } from './core/decision';
export { ApprovalStatus, APPROVAL_STATUSES, transition, isTerminal } from './core/lifecycle';
export { AuditEvent, verifyChain } from './core/audit';
export { canonicalJson, digest } from './core/hashing';
export { Interaction, InteractionResponse, checkInteractionResponse } from './core/interaction';
export { ToolOutcome } from './core/conversation';
export { GateClient } from './client/gate-client';
export { GateError } from './client/gate-error';
export { RunClient, CreateRunBody } from './client/run-client';
export {
  decideSignal,
  decideUpdate,
  consumeUpdate,
  cancelSignal,
  cancelUpdate,
  getGateQuery,
  getAuditQuery,
} from './workflows/definitions';
export type { DomainAdapter, DomainTool, CallPlan, RecheckResult, RevisionResult, ToolOutput } from './domain/types';
export { DomainToolError, isDomainToolError } from './domain/errors';
