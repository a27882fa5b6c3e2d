import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Action, BlastRadius, CreateApprovalBody, EvidenceFields } from '../common/evidence';
import { approvalsProgress, field, text } from '../cli/format-approvals';
import type { GateHttpClient, Json } from '../cli/http';
import { describeError } from '../cli/io';
import { nextStep, pendingStep } from './status-guidance';

/** Input of `request_action_approval`: the evidence the agent knows (docs/concepts.md). */
export const RequestApprovalInput = {
  /** Namespaced verb. */
  action: Action.describe('namespaced verb of the action, e.g. "refund.create" or "db.migrate"'),
  /** Resource being changed. */
  target: EvidenceFields.shape.target.describe('canonical id of the resource the action changes'),
  /** One line a reviewer scans. */
  summary: EvidenceFields.shape.summary.describe('one line (at most 120 characters) saying what will happen'),
  /** Exact input the executor will run. */
  args: z
    .record(z.string(), z.unknown())
    .describe('the exact arguments the action will run with; never include secrets'),
  blast_radius: BlastRadius.optional().describe(
    'concrete impact as integers, e.g. { "amount_cents": 5000, "rows": 120 }',
  ),
  correlation_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('trace id linking this request to your run; generated when absent'),
  trigger_event_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'id of the inbound event that caused this action; with the same action and target it makes retries return the same request',
    ),
  ttl_seconds: CreateApprovalBody.shape.ttl_seconds.describe('seconds a reviewer has to decide; default 3600'),
  approvals_required: z.int().min(1).max(10).optional().describe('distinct reviewers needed; default 1'),
  notify: CreateApprovalBody.shape.notify.describe(
    'who to tell when the request opens, e.g. ["slack:#approvals", "email:lead@example.com"]; default the server\'s rule or GATE_NOTIFY',
  ),
  escalation: CreateApprovalBody.shape.escalation.describe(
    'who to tell (and which roles may decide too) while nobody has decided: { levels: [{ after: "30m", notify: [...], roles: [...] }], repeat }; every level must come before the ttl',
  ),
};
export type RequestApprovalInput = {
  [K in keyof typeof RequestApprovalInput]: z.infer<(typeof RequestApprovalInput)[K]>;
};

/** Input of `check_approval_status`. */
export const CheckStatusInput = {
  approval_id: z.string().min(1).max(200).describe('the approval_id request_action_approval returned'),
};

/** A tool result carrying `value` both as structured content and as JSON text for clients that read only text. */
export function toolResult(value: Json): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/** A failed call as an MCP tool error (the model sees the server's message), never a protocol crash. */
export function toolError(err: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: describeError(err) ?? String(err) }] };
}

/** POSTs the request to `/v1/approvals` with the agent key; returns the new approval's id, status, hash and deadline. */
export async function requestActionApproval(client: GateHttpClient, input: RequestApprovalInput): Promise<Json> {
  const body: Json = {
    action: input.action,
    target: input.target,
    summary: input.summary,
    args: input.args,
    correlation_id: input.correlation_id ?? randomUUID(),
    trigger_event_id: input.trigger_event_id ?? `mcp-${randomUUID()}`,
    executor: 'external',
  };
  if (input.blast_radius) body.blast_radius = input.blast_radius;
  if (input.ttl_seconds !== undefined) body.ttl_seconds = input.ttl_seconds;
  if (input.approvals_required !== undefined) body.approvals_required = input.approvals_required;
  if (input.notify !== undefined) body.notify = input.notify;
  if (input.escalation !== undefined) body.escalation = input.escalation as Json;
  const created = await client.createApproval(body);
  const id = text(created, 'request_id');
  const status = text(created, 'status');
  // The rule file may decide at creation (allow, block, a standing grant) and warn about rules on trial.
  const policy = created.policy as Json | undefined;
  return {
    approval_id: id,
    status,
    payload_sha256: text(created, 'payload_sha256'),
    expires_at: text(created, 'expires_at'),
    next_step: nextStep(status, id, typeof policy?.reason === 'string' ? policy.reason : undefined),
    ...(policy ? { policy } : {}),
    ...(Array.isArray(created.warnings) ? { warnings: created.warnings as Json[] } : {}),
  };
}

/** Reads one approval (never consumes it) and says what the agent should do next. */
export async function checkApprovalStatus(client: GateHttpClient, approvalId: string): Promise<Json> {
  const a = await client.getApproval(approvalId);
  const status = text(a, 'status');
  const decision = (a.decision ?? {}) as Json;
  const reason =
    typeof decision.reason === 'string'
      ? decision.reason
      : typeof a.status_reason === 'string'
        ? a.status_reason
        : undefined;
  const out: Json = {
    approval_id: approvalId,
    status,
    approvals: approvalsProgress(a),
    payload_sha256: text(a, 'payload_sha256'),
    expires_at: text(a, 'expires_at'),
    executor_should_consume: status === 'approved',
    next_step: nextStep(status, approvalId, reason),
  };
  if (reason) out.reason = reason;
  const pending = Array.isArray(a.pending_decisions) ? (a.pending_decisions as Json[]) : [];
  if (pending.length > 0 && status === 'requested') {
    // Decisions a reviewer made that the gate has not applied yet (its workers are behind): not an approval yet.
    out.pending_decisions = pending.map((d) => ({
      decision: text(d, 'decision'),
      reviewer_id: text(d, 'reviewer_id'),
      accepted_at: text(d, 'sent_at'),
    }));
    out.next_step = pendingStep(pending.length);
  }
  if (status === 'approved') {
    out.approved_args = a.final_args ?? field(a, 'args');
    if (a.consume_deadline) out.consume_by = a.consume_deadline;
  }
  return out;
}
