/**
 * Every metric approval-gate exports, in one place: the workflow code, the API, the
 * reference in docs/production.md and the Grafana dashboard's test read this list.
 *
 * Where a number comes from decides whether it is right with several processes:
 * - `worker`: lifecycle events recorded by workflow code through the workflow
 *   `metricMeter`. The worker that runs the workflow task emits it, and the SDK does not
 *   emit on replay, so each event counts once across all workers: `sum()` over workers.
 * - `api`: what one API process saw (its HTTP requests, the creates, decisions and
 *   consumes it forwarded): `sum()` over API processes.
 * - `visibility`: read by the API from Temporal's visibility store, the same value in every
 *   API process: `max()` over API processes, never `sum()`.
 */
export type MetricSource = 'worker' | 'api' | 'visibility';
export type MetricKind = 'counter' | 'histogram' | 'gauge';

export interface MetricSpec {
  /** The name as Prometheus shows it (counters end in `_total`). */
  name: string;
  kind: MetricKind;
  source: MetricSource;
  labels: readonly string[];
  help: string;
}

/** Seconds from creation to the deciding vote: 1 s to a day. */
export const TIME_TO_DECISION_BUCKETS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 86400];

export const GateMetric = {
  requests: {
    name: 'gate_requests_total',
    kind: 'counter',
    source: 'worker',
    labels: ['action', 'executor'],
    help: 'Approval requests created (gates started), by action and executor (external or tool).',
  },
  decisions: {
    name: 'gate_decisions_total',
    kind: 'counter',
    source: 'worker',
    labels: ['action', 'decision'],
    help: 'Decisions applied to a gate (each vote), by decision: approve, reject or modify.',
  },
  decisionsRefused: {
    name: 'gate_decisions_refused_total',
    kind: 'counter',
    source: 'worker',
    labels: ['action', 'refusal'],
    help: 'Decisions and cancels a gate refused and audited, by failure type (e.g. IllegalTransition, HashMismatch).',
  },
  expired: {
    name: 'gate_expired_total',
    kind: 'counter',
    source: 'worker',
    labels: ['action', 'phase'],
    help: 'Gates that expired: phase "decision" (no quorum before expires_at) or "consume" (approved, not consumed in time).',
  },
  escalated: {
    name: 'gate_escalated_total',
    kind: 'counter',
    source: 'worker',
    labels: ['action', 'level'],
    help: 'Escalations of pending gates: each level of an escalation chain (level 1, 2, ...) and the escalate_before notice (level "before_expiry").',
  },
  notifications: {
    name: 'gate_notifications_total',
    kind: 'counter',
    source: 'worker',
    labels: ['channel', 'outcome'],
    help: "Notices to reviewer channels, by channel (slack, email, teams) and outcome: sent, or failed after the delivery's retries.",
  },
  consumed: {
    name: 'gate_consumed_total',
    kind: 'counter',
    source: 'worker',
    labels: ['action', 'executor'],
    help: 'Approvals consumed: by the agent (external) or by the gate running the tool (tool).',
  },
  invalidated: {
    name: 'gate_invalidated_total',
    kind: 'counter',
    source: 'worker',
    labels: ['action'],
    help: 'Approved tool gates that did not run because the snapshot no longer held (or could not be verified).',
  },
  cancelled: {
    name: 'gate_cancelled_total',
    kind: 'counter',
    source: 'worker',
    labels: ['action'],
    help: 'Gates cancelled by their requester or their run.',
  },
  toolExecutions: {
    name: 'gate_tool_executions_total',
    kind: 'counter',
    source: 'worker',
    labels: ['action', 'outcome'],
    help: 'Tools run by a gate after approval, by outcome: success or failure (the tool refused).',
  },
  timeToDecision: {
    name: 'gate_time_to_decision_seconds',
    kind: 'histogram',
    source: 'worker',
    labels: ['action', 'outcome'],
    help: 'Seconds from creation to the deciding decision, by outcome: approved or denied.',
  },
  policyShadow: {
    name: 'gate_policy_shadow_total',
    kind: 'counter',
    source: 'worker',
    labels: ['rule', 'effect'],
    help: 'Verdicts of warn and audit rules (GATE_POLICY_FILE version 2), never enforced: what each rule would have done.',
  },
  runsStarted: {
    name: 'gate_runs_started_total',
    kind: 'counter',
    source: 'worker',
    labels: ['domain'],
    help: 'Agent runs started (a continued run is not counted again).',
  },
  runsFinished: {
    name: 'gate_runs_finished_total',
    kind: 'counter',
    source: 'worker',
    labels: ['domain', 'status', 'error_type'],
    help: 'Agent runs ended, by status (completed, failed, cancelled) and, for failed runs, the failure type.',
  },
  apiHttpRequests: {
    name: 'gate_api_http_requests_total',
    kind: 'counter',
    source: 'api',
    labels: ['method', 'route', 'status'],
    help: 'HTTP requests this API process answered, by route pattern and status code.',
  },
  apiCreates: {
    name: 'gate_api_requests_total',
    kind: 'counter',
    source: 'api',
    labels: ['action', 'result'],
    help: 'POST /v1/approvals this API process answered, by action and result: created, replayed (same idempotency key) or shed (503 gate_busy while the gate workers were behind).',
  },
  apiDecisions: {
    name: 'gate_api_decisions_total',
    kind: 'counter',
    source: 'api',
    labels: ['decision', 'result'],
    help: 'Decisions sent through this API process, by decision and result: applied, replayed, accepted (202: sent by signal, applied when a worker gets to it), or the refusal code.',
  },
  apiConsumes: {
    name: 'gate_api_consumed_total',
    kind: 'counter',
    source: 'api',
    labels: ['result'],
    help: 'Consumes sent through this API process, by result: consumed or the refusal code.',
  },
  queueDepth: {
    name: 'gate_queue_depth',
    kind: 'gauge',
    source: 'visibility',
    labels: ['status'],
    help: 'Gates in each status, counted in Temporal visibility (refreshed at most every GATE_METRICS_QUEUE_TTL_MS).',
  },
  queueDepthErrors: {
    name: 'gate_queue_depth_errors_total',
    kind: 'counter',
    source: 'api',
    labels: [],
    help: 'Visibility counts that failed (the gauge then keeps its last value).',
  },
} as const satisfies Record<string, MetricSpec>;
export type GateMetric = (typeof GateMetric)[keyof typeof GateMetric];

/** Every metric of the catalog. */
export const GATE_METRICS: readonly MetricSpec[] = Object.values(GateMetric);

/**
 * The name to give the SDK's metric meter for a worker counter: the Prometheus exporter
 * adds `_total` itself (`countersTotalSuffix`).
 */
export function meterName(m: MetricSpec): string {
  return m.kind === 'counter' ? m.name.replace(/_total$/, '') : m.name;
}

/** Label value for a caller-chosen string (the action): short and printable, so it cannot blow up a label. */
export function labelValue(v: string | undefined | null): string {
  if (!v) return 'none';
  return /^[A-Za-z0-9_.:/-]{1,64}$/.test(v) ? v : 'other';
}
