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
} from './common/evidence';
export { DecisionBody, DecisionMessage, DecisionWord, ReviewerAuth } from './common/decision';
export type { DecisionResult } from './common/decision';
export { ApprovalStatus, APPROVAL_STATUSES, transition, isTerminal } from './common/lifecycle';
export { AuditEvent, verifyChain } from './common/audit';
export { canonicalJson, digest } from './common/hashing';
// Evidence bundles: the verifier is pure (inject any Ed25519 verify); nodeEd25519Verify is node:crypto's.
export { verifyEvidenceBundle, EvidenceCheck, EVIDENCE_CHECKS } from './common/evidence-verify';
export type {
  EvidenceVerification,
  EvidenceVerifyOptions,
  TrustedKey,
  Ed25519Verify,
  PassedCheck,
} from './common/evidence-verify';
export { DsseEnvelope, pae, keyIdOf, IN_TOTO_PAYLOAD_TYPE } from './common/dsse';
export {
  ApprovalStatement,
  APPROVAL_PREDICATE_TYPE,
  IN_TOTO_STATEMENT_TYPE,
  statementOf,
} from './common/evidence-statement';
export type { EvidenceDecision, EvidenceOutcome, EvidenceQuorum } from './common/evidence-facts';
export { nodeEd25519Verify } from './evidence/verify-file';
export { publicKeysInPem } from './evidence/signing-keys';
export { Interaction, InteractionResponse, checkInteractionResponse } from './common/interaction';
export { ToolOutcome } from './common/conversation';
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
} from './workflow/gate/messages';
export type { DomainAdapter, DomainTool, CallPlan, RecheckResult, RevisionResult, ToolOutput } from './domain/types';
export {
  ApprovalGateError,
  ConfigurationError,
  RefusedError,
  UnavailableError,
  DomainToolError,
  isDomainToolError,
  ModelError,
} from './common/errors';
export { PolicyFileError } from './policy/reviewer-policy';
