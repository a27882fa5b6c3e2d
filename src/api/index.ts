// `approval-gate/api`: serve the HTTP API (approvals, runs, your domains' routes) from your own process.
export { startApiServer, createApiServer, type StartApiOptions, type RunningApi, type ExtraRoutes } from './server';
export { loadConfig, type GateConfig } from '../config';
export { ApprovalGateError, ConfigurationError, RefusedError, UnavailableError } from '../common/errors';
export { PolicyFileError } from '../policy/reviewer-policy';
