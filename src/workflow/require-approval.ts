import type { GateState } from '../common/gate-state';
import { openGate, type ReusedRequest } from './open-gate';
import type { ApprovalOutcome, ApprovalRequest, RequireApprovalOptions } from './types';

/**
 * Asks a person to approve `request` and waits (durably: minutes or days) for the
 * outcome. The gate is an ordinary approval gate: it shows up in the HTTP API, the CLI,
 * the reviewer page, MCP, webhooks and the audit trail, with this workflow's id as its
 * `correlation_id`. An approval is consumed by being returned: it resolves `approved`
 * once, and a replay sees the same recorded result; a request id that was used before
 * (an explicit `requestId` in a retried run) resolves `cancelled` instead of reopening.
 * Throws a non-retryable ApplicationFailure (InvalidInput) for a request that is not
 * valid evidence (bad action, a secret in the args, over 64 KB), before anything starts.
 *
 * @example
 * const outcome = await requireApproval({ action: 'refund.create', target: `order/${id}`,
 *   summary: 'Refund 120.00 EUR', args: { order_id: id, cents: 12000 }, ttl: '1h' });
 * if (outcome.status === 'approved') await refund(outcome.args);
 */
export async function requireApproval(
  request: ApprovalRequest,
  options: RequireApprovalOptions = {},
): Promise<ApprovalOutcome> {
  return outcomeOf(await openGate(request, options));
}

/** A gate's end as the caller sees it. `invalidated` only comes from a recheck, which requireApproval never asks for. */
export function outcomeOf(g: GateState | ReusedRequest): ApprovalOutcome {
  if ('reused' in g)
    return {
      status: 'cancelled',
      request_id: g.request_id,
      reason: `request ${g.request_id} was opened before (an earlier run or another workflow); an approval is handed out once, so open a new request`,
    };
  const decidedBy = g.decision?.reviewer_id ?? 'unknown';
  switch (g.status) {
    case 'consumed':
      return {
        status: 'approved',
        request_id: g.request_id,
        args: g.final_args,
        args_sha256: g.final_args_sha256,
        payload_sha256: g.payload_sha256,
        decided_by: decidedBy,
        approvers: g.votes.map((v) => v.reviewer_id),
        modified: g.modified_by !== undefined,
      };
    case 'denied':
      return {
        status: 'denied',
        request_id: g.request_id,
        reason: g.status_reason ?? 'no reason given',
        decided_by: decidedBy,
      };
    case 'expired':
      return { status: 'expired', request_id: g.request_id };
    default:
      return { status: 'cancelled', request_id: g.request_id, ...(g.status_reason ? { reason: g.status_reason } : {}) };
  }
}
