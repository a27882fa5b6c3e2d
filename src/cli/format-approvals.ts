import type { Json } from './http';
import { relativeTime, renderFields, renderTable } from './table';

/** A field of an approval as the API returns it: at the top level or inside its evidence `payload`. */
export function field(item: Json, key: string): unknown {
  if (item[key] !== undefined) return item[key];
  const payload = item.payload as Json | undefined;
  return payload && typeof payload === 'object' ? payload[key] : undefined;
}

/** String form of a field; empty when absent. */
export function text(item: Json, key: string): string {
  const v = field(item, key);
  return v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
}

/** The request id of an approval, whichever name the server used. */
export function approvalId(item: Json): string {
  return text(item, 'request_id') || text(item, 'approval_id') || text(item, 'id');
}

/** The list a `GET /v1/approvals` answer holds: a bare array or `{ approvals | items | data: [...] }`. */
export function approvalItems(body: unknown): Json[] {
  if (Array.isArray(body)) return body as Json[];
  const b = (body ?? {}) as Json;
  const list = b.approvals ?? b.items ?? b.data ?? b.results;
  return Array.isArray(list) ? (list as Json[]) : [];
}

/** The list's columns. */
export const APPROVAL_COLUMNS = ['ID', 'STATUS', 'ACTION', 'TARGET', 'SUMMARY', 'EXPIRES'] as const;

/** One list row: id, status, action, target, summary, expires. */
export function approvalRow(item: Json, now: Date): string[] {
  const expires = text(item, 'expires_at');
  const rel = expires ? relativeTime(expires, now) : '';
  return [
    approvalId(item),
    text(item, 'status'),
    text(item, 'action'),
    text(item, 'target'),
    text(item, 'summary'),
    rel ? `${expires} (${rel})` : expires,
  ];
}

/** The aligned table `gate approvals list` prints, or a line saying there is nothing. */
export function formatApprovalList(items: readonly Json[], now: Date = new Date()): string {
  if (items.length === 0) return 'no approval requests match';
  return renderTable(
    APPROVAL_COLUMNS,
    items.map((i) => approvalRow(i, now)),
    { 3: 40, 4: 60 },
  );
}

/** "1/2" from the votes (or an explicit count) and the approvals required. */
export function approvalsProgress(item: Json): string {
  const votes = field(item, 'votes');
  const count = typeof item.approvals === 'number' ? item.approvals : Array.isArray(votes) ? votes.length : 0;
  const required = field(item, 'approvals_required');
  return `${count}/${typeof required === 'number' ? required : 1}`;
}

/**
 * A decision the API accepted without applying it yet (202 `decision_accepted`): the
 * gate's workers are behind, and the gate applies it, or refuses and audits it, when one
 * gets to it. Exit code 0: the decision is recorded.
 */
export function acceptedLine(id: string, result: Json): string {
  const what = text(result, 'decision') || 'decision';
  return `${what} accepted and pending on ${id} (decision ${text(result, 'decision_id')}): the gate's workers are behind; it is recorded and will be applied in order, or refused and audited. Check with \`gate approvals show ${id}\` or \`gate audit ${id}\``;
}

/** "approve by rev-1 (d-123), sent 2026-…" for each decision the gate has received and not applied yet. */
export function pendingDecisionsText(item: Json): string | undefined {
  const list = item.pending_decisions;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return (list as Json[])
    .map(
      (d) =>
        `${text(d, 'decision')} by ${text(d, 'reviewer_id')} (${text(d, 'decision_id')}), accepted ${text(d, 'sent_at')}`,
    )
    .join('; ');
}

function pretty(value: unknown): string {
  return JSON.stringify(value ?? {}, null, 2);
}

/** The readable block `gate approvals show` (and the decision commands) print. */
export function formatApproval(item: Json, now: Date = new Date()): string {
  const expires = text(item, 'expires_at');
  const finalArgs = item.final_args as Json | undefined;
  const args = field(item, 'args');
  const modified = finalArgs !== undefined && JSON.stringify(finalArgs) !== JSON.stringify(args);
  const decision = item.decision as Json | undefined;
  const head = renderFields([
    ['request', approvalId(item)],
    ['summary', text(item, 'summary')],
    ['status', text(item, 'status') + (item.status_reason ? ` (${String(item.status_reason)})` : '')],
    ['action', text(item, 'action')],
    ['target', text(item, 'target')],
    ['agent', text(item, 'agent_id') || undefined],
    ['approvals', approvalsProgress(item)],
    ['decided by', decision ? `${String(decision.reviewer_id ?? '')} (${String(decision.decision ?? '')})` : undefined],
    ['blast radius', field(item, 'blast_radius') ? JSON.stringify(field(item, 'blast_radius')) : undefined],
    ['payload_sha256', text(item, 'payload_sha256')],
    ['expires', expires ? `${expires} (${relativeTime(expires, now)})` : ''],
    ['consume by', item.consume_deadline ? String(item.consume_deadline) : undefined],
    ['consumed', item.consumed_at ? `${String(item.consumed_at)} by ${String(item.consumed_by ?? '?')}` : undefined],
    ['pending', pendingDecisionsText(item)],
    [
      'note',
      item.stale === true
        ? 'no worker answered (the gate workers are behind or away); showing what Temporal visibility knows'
        : undefined,
    ],
  ]);
  const blocks = [head, `args:\n${indent(pretty(args))}`];
  if (modified) blocks.push(`args after modification (these run):\n${indent(pretty(finalArgs))}`);
  return blocks.join('\n');
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
