/**
 * Custom search attribute names (all Keyword). `gate dev` and docker-compose register
 * them; the Web UI filters on them: `GateStatus = "requested" AND GateAction = "trip.submit"`.
 */
export const SEARCH_ATTRIBUTE_NAMES = {
  status: 'GateStatus',
  action: 'GateAction',
  agent: 'GateAgent',
  target: 'GateTarget',
  runId: 'GateRunId',
  /** A run's own status (running, waiting_approval, completed…), apart from gate statuses. */
  runStatus: 'GateRunStatus',
  /**
   * The tenant of a gate or run, set when it starts. Every listing filters on it; a
   * workflow without it (started before tenants, or by another service) is the default tenant's.
   */
  tenant: 'GateTenant',
} as const;
