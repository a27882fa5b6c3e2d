import { metricMeter } from '@temporalio/workflow';
import { GateMetric, labelValue, meterName, type MetricSpec } from '../../common/metrics-catalog';
import type { AuditEvent } from '../../common/audit';
import type { GateState } from '../../common/gate-state';

// Lifecycle metrics from workflow code. The workflow metricMeter goes through a sink the SDK
// does not call on replay, so a gate rebuilt from history (cache eviction, another worker)
// does not count its events twice. Emitting is not a command: no patch is needed.

const add = (m: MetricSpec, tags: Record<string, string>): void =>
  metricMeter.createCounter(meterName(m), undefined, m.help).add(1, tags);

/** Counts a gate's lifecycle events as its trail records them (one place, so metrics and audit agree). */
export function observeGateEvent(state: GateState, e: AuditEvent): void {
  const action = labelValue(state.payload.action);
  switch (e.event_type) {
    case 'approval.requested':
      return add(GateMetric.requests, { action, executor: state.executor });
    case 'approval.approved':
    case 'approval.denied': {
      const seconds = (Date.parse(e.timestamp) - Date.parse(state.created_at)) / 1000; // workflow clock
      const outcome = e.event_type === 'approval.approved' ? 'approved' : 'denied';
      const m = GateMetric.timeToDecision;
      metricMeter.createHistogram(m.name, 'float', 's', m.help).record(Math.max(0, seconds), { action, outcome });
      return;
    }
    case 'approval.expired':
      return add(GateMetric.expired, { action, phase: state.consume_deadline ? 'consume' : 'decision' });
    case 'approval.escalated':
      return add(GateMetric.escalated, {
        action,
        level: typeof e.data?.level === 'number' ? String(e.data.level) : 'before_expiry',
      });
    case 'approval.consumed':
      return add(GateMetric.consumed, { action, executor: state.executor });
    case 'approval.invalidated':
      return add(GateMetric.invalidated, { action });
    case 'approval.cancelled':
      return add(GateMetric.cancelled, { action });
    case 'policy.shadow':
      return add(GateMetric.policyShadow, {
        rule: labelValue(String(e.data?.rule_id ?? 'unknown')),
        effect: labelValue(String(e.data?.effect ?? 'unknown')),
      });
    case 'decision.refused':
      return add(GateMetric.decisionsRefused, { action, refusal: labelValue(String(e.data?.refusal ?? 'unknown')) });
    case 'tool.succeeded':
      return add(GateMetric.toolExecutions, { action, outcome: 'success' });
    case 'tool.failed':
      return add(GateMetric.toolExecutions, { action, outcome: 'failure' });
  }
}

/** One applied decision (a vote), by its kind. */
export function countDecision(state: GateState, decision: string): void {
  add(GateMetric.decisions, { action: labelValue(state.payload.action), decision: labelValue(decision) });
}

/** One notice delivery's end: sent, or failed after its retries. */
export function countNotice(channel: string, outcome: 'sent' | 'failed'): void {
  add(GateMetric.notifications, { channel: labelValue(channel), outcome });
}

/** A run's start and end, from its trail. */
export function observeRunEvent(domain: string, e: AuditEvent): void {
  const d = labelValue(domain);
  switch (e.event_type) {
    case 'run.started':
      return add(GateMetric.runsStarted, { domain: d });
    case 'run.completed':
      return add(GateMetric.runsFinished, { domain: d, status: 'completed', error_type: 'none' });
    case 'run.cancelled':
      return add(GateMetric.runsFinished, { domain: d, status: 'cancelled', error_type: 'none' });
    case 'run.failed':
      return add(GateMetric.runsFinished, {
        domain: d,
        status: 'failed',
        error_type: labelValue(typeof e.data?.failure_type === 'string' ? e.data.failure_type : 'unknown'),
      });
  }
}
