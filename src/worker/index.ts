// `approval-gate/worker`: host the gate in a worker of your own, or run a standalone gate worker.
export { createGateWorker, type GateWorker, type GateWorkerOptions } from './create-gate-worker';
export type {
  DomainAdapter,
  DomainContext,
  DomainRouteContext,
  DomainRoutes,
  DomainSource,
  DomainTool,
  CallPlan,
  RecheckResult,
  RevisionResult,
  RiskClass,
  ToolOutput,
} from '../domain/types';
export { approvalGatePlugin, type ApprovalGatePluginOptions } from './plugin';
export { migrateUnderLock, type Db } from '../store/db';
export {
  ApprovalGateError,
  ConfigurationError,
  RefusedError,
  UnavailableError,
  DomainToolError,
  isDomainToolError,
  ModelError,
} from '../common/errors';
export { PolicyFileError } from '../policy/reviewer-policy';
