/**
 * What an agent polling `check_approval_status` should do next, per status. Only
 * `approved` lets anything run, and only through one consume by the executor.
 */
export function nextStep(status: string, approvalId: string, reason?: string): string {
  switch (status) {
    case 'requested':
      return 'Waiting for a human reviewer. Do not run the action yet; call check_approval_status again later.';
    case 'approved':
      return `Approved. The executor should now consume this approval exactly once (POST /v1/approvals/${approvalId}/consume with the requesting agent's key) and run exactly the args it returns. This tool never consumes.`;
    case 'denied':
      return `Denied${reason ? `: ${reason}` : ''}. Do not run the action; a denial is final for this request.`;
    case 'expired':
      return 'Expired without a usable approval (fails closed). Do not run the action; open a new request if it is still needed.';
    case 'consumed':
      return 'Already consumed: the approved action was handed to its executor once. Do not run it again.';
    case 'cancelled':
      return 'Cancelled by the requester. Do not run the action.';
    case 'invalidated':
      return 'Invalidated: what was approved no longer matches the current state. Do not run the action; open a new request for the current state.';
    default:
      return `Unknown status "${status}". Do not run the action.`;
  }
}

/**
 * A request still `requested` although a reviewer has decided: the decision was accepted
 * and waits for the gate's workers, which are behind. Nothing may run until it is applied.
 */
export function pendingStep(count: number): string {
  return `A reviewer's decision${count > 1 ? 's were' : ' was'} accepted and ${count > 1 ? 'are' : 'is'} waiting to be applied (the gate's workers are behind). Do not run the action yet; call check_approval_status again in a few seconds.`;
}
