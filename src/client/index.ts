// `approval-gate/client`: talk to gates and agent runs from any Node service, through Temporal.
export { GateClient, type GateClientOptions, type CreateResult, type AuditView } from './gate-client';
export { openAuditStore, type OpenAuditStoreOptions, type OpenedAuditStore } from './open-audit-store';
export type { AuditStore } from '../store/audit-store';
export type { IntentRecovery, RecoverOptions } from './audit-intents';
export { RunClient, CreateRunBody } from './run-client';
export { GateError, type FieldProblem } from './gate-error';
export { ApprovalGateError, ConfigurationError, RefusedError, UnavailableError } from '../common/errors';
