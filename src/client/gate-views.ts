import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { GateState } from '../common/gate-state';
import type { ApprovalStatus } from '../common/lifecycle';
import { SEARCH_ATTRIBUTE_NAMES } from '../common/search-attributes';
import { checkTenant, DEFAULT_TENANT, visibleTo, type Ownership, type Scope } from '../common/tenant';
import { GATE_ACTION, GATE_AGENT, GATE_STATUS, GATE_TARGET, GATE_TENANT } from '../workflow/gate/messages';

/** The registered workflow type of every gate. */
export const GATE_WORKFLOW_TYPE = 'approvalGateWorkflow';

export type { GateMemo } from '../common/gate-memo';
import type { GateMemo } from '../common/gate-memo';

/** What `POST /v1/approvals` returns. */
export interface RequestRef {
  request_id: string;
  status: string;
  expires_at: string;
  payload_sha256: string;
}

/** A create's answer: the request, and what a version 2 rule file made of it. */
export interface CreatedRequest extends RequestRef {
  /** The deciding rule (or grant) when the rule file decided at creation, or which rule asks a person. */
  policy?: { effect: string; rule_id: string | null; decided_by?: string; reason?: string; grant_id?: string };
  /** What `warn` rules would have done (never enforced). */
  warnings?: { rule_id: string; effect: string; message: string }[];
}

/** One line of `GET /v1/approvals`. */
export interface GateSummary extends RequestRef {
  action: string;
  target: string;
  agent_id: string;
  /** The tenant the gate belongs to. */
  tenant: string;
  summary: string;
  approvals_required: number | null;
  created_at: string;
  /** True once the workflow has finished (the status is final). */
  closed: boolean;
}

/** A decision the gate has received by signal and not applied yet (a 202 `decision_accepted`, or another service's signal). */
export interface PendingDecision {
  decision_id: string;
  decision: string;
  reviewer_id: string;
  /** When Temporal recorded it. */
  sent_at: string;
}

/**
 * A gate as `get` returns it: the live state (or, its workers behind, the state it starts
 * with, read from its history), or (no worker answering) what visibility knows, marked
 * stale; with the decisions it has received and not yet applied when its workers are behind.
 */
export type GateView =
  | (GateState & { stale: false; pending_decisions?: PendingDecision[] })
  | (GateSummary & { stale: true; workflow_status: string; pending_decisions?: PendingDecision[] });

/** Reads the memo of a described or listed gate; undefined when it is not a gate started through this client. */
export function memoOf(info: Pick<WorkflowExecutionInfo, 'memo'>): Partial<GateMemo> {
  return (info.memo ?? {}) as Partial<GateMemo>;
}

/** The gate's status from its search attribute, or from the workflow status when the attribute is missing. */
export function statusOf(info: Pick<WorkflowExecutionInfo, 'typedSearchAttributes' | 'status'>): string {
  return info.typedSearchAttributes.get(GATE_STATUS) ?? info.status.name.toLowerCase();
}

/** A summary built from visibility data only (memo + search attributes). */
export function summaryOf(info: Omit<WorkflowExecutionInfo, 'raw'>): GateSummary {
  const m = memoOf(info);
  return {
    request_id: info.workflowId,
    status: statusOf(info),
    action: m.action ?? info.typedSearchAttributes.get(GATE_ACTION) ?? '',
    target: m.target ?? info.typedSearchAttributes.get(GATE_TARGET) ?? '',
    agent_id: m.agent_id ?? info.typedSearchAttributes.get(GATE_AGENT) ?? '',
    tenant: tenantOf(info),
    summary: m.summary ?? '',
    payload_sha256: m.payload_sha256 ?? '',
    expires_at: m.expires_at ?? '',
    approvals_required: m.approvals_required ?? null,
    created_at: info.startTime.toISOString(),
    closed: info.status.name !== 'RUNNING',
  };
}

/** The tenant a described or listed workflow belongs to: its search attribute, else the default tenant. */
export function tenantOf(info: Pick<WorkflowExecutionInfo, 'typedSearchAttributes'>): string {
  return info.typedSearchAttributes.get(GATE_TENANT) || DEFAULT_TENANT;
}

/** Who owns a described gate: its tenant and the agent that requested it. */
export function gateOwnership(info: Pick<WorkflowExecutionInfo, 'typedSearchAttributes' | 'memo'>): Ownership {
  return { tenant: tenantOf(info), agentId: memoOf(info).agent_id ?? info.typedSearchAttributes.get(GATE_AGENT) };
}

/**
 * The visibility clauses that keep a listing inside a scope: the tenant (the default
 * tenant also owns workflows without the attribute) and, for an agent, its own id.
 * The tenant is checked against its shape and every value quoted, and the caller
 * ANDs the clauses with everything else, so no filter value can widen them.
 */
export function scopeClauses(scope: Scope): string[] {
  const t = SEARCH_ATTRIBUTE_NAMES.tenant;
  const tenant = quote(checkTenant(scope.tenant));
  const parts = [scope.tenant === DEFAULT_TENANT ? `(${t} = ${tenant} OR ${t} IS NULL)` : `${t} = ${tenant}`];
  if (scope.agentId !== undefined) parts.push(`${SEARCH_ATTRIBUTE_NAMES.agent} = ${quote(scope.agentId)}`);
  return parts;
}

/** Filters of `list`. */
export interface ListFilter {
  /** Only what this scope may see; every API listing sets it. Absent: every tenant (trusted in-process callers). */
  scope?: Scope;
  status?: ApprovalStatus;
  target?: string;
  agentId?: string;
  /** At most this many, newest first; default 50. */
  limit?: number;
  /** Only gates whose workflow started at or after this ISO time. */
  since?: string;
  /** Only gates whose workflow started before this ISO time. */
  before?: string;
}

/** A visibility string literal: quotes and backslashes escaped, so a target cannot change the query. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Characters Temporal's SQL visibility cannot match inside a literal, escaped or not. */
const UNQUERYABLE = /["\\]/;

/**
 * The visibility query for a filter (only gate workflows, then status / target / agent)
 * and an exact check to run on each result. Temporal's SQL visibility cannot match a
 * value holding a backslash or a double quote exactly, so such a value is queried by the
 * prefix before the first of them (no clause at all when that prefix is empty) and
 * `keep` does the exact comparison.
 */
export function visibilityFilter(f: ListFilter): { query: string; keep: (s: GateSummary) => boolean } {
  const parts = [`WorkflowType = ${quote(GATE_WORKFLOW_TYPE)}`, ...(f.scope ? scopeClauses(f.scope) : [])];
  const exact: ((s: GateSummary) => boolean)[] = [];
  const scope = f.scope;
  // Checked again on every result: the query is the filter, this is the guarantee.
  if (scope) exact.push((s) => visibleTo(scope, { tenant: s.tenant, agentId: s.agent_id }));
  const add = (name: string, value: string | undefined, field: 'status' | 'target' | 'agent_id'): void => {
    if (value === undefined) return;
    const cut = value.search(UNQUERYABLE);
    if (cut < 0) {
      parts.push(`${name} = ${quote(value)}`);
      return;
    }
    if (cut > 0) parts.push(`${name} STARTS_WITH ${quote(value.slice(0, cut))}`);
    exact.push((s) => s[field] === value);
  };
  add(SEARCH_ATTRIBUTE_NAMES.status, f.status, 'status');
  // A gate still requested or approved when its workflow closed (terminated or timed out
  // from outside, or the run it handed over from) can take no decision: not in the queue.
  if (f.status === 'requested' || f.status === 'approved') {
    parts.push(`ExecutionStatus = 'Running'`);
    exact.push((s) => !s.closed);
  }
  // Times are normalised ISO strings (the API parses them), so quoting them is enough.
  if (f.since !== undefined) parts.push(`StartTime >= ${quote(new Date(f.since).toISOString())}`);
  if (f.before !== undefined) parts.push(`StartTime < ${quote(new Date(f.before).toISOString())}`);
  add(SEARCH_ATTRIBUTE_NAMES.target, f.target, 'target');
  add(SEARCH_ATTRIBUTE_NAMES.agent, f.agentId, 'agent_id');
  return { query: parts.join(' AND '), keep: (s) => exact.every((ok) => ok(s)) };
}
