// Workflow code (bundled by your worker): two ways to put a person in front of a refund.
import { proxyActivities } from '@temporalio/workflow';
import { requireApproval, withApproval } from 'approval-gate/workflow';
import type * as activities from './refund-activities';

const { refund } = proxyActivities<typeof activities>({ startToCloseTimeout: '1m' });

export type Refund = { order_id: string; cents: number };

/** 1. A workflow call: ask, wait (minutes or days), then act on exactly what was approved. */
export async function refundWorkflow(r: Refund): Promise<string> {
  const outcome = await requireApproval({
    action: 'refund.create',
    target: `order/${r.order_id}`,
    summary: `Refund ${r.cents} cents on order ${r.order_id}`,
    blast_radius: { cents: r.cents },
    args: r,
    ttl: '1h',
  });
  if (outcome.status !== 'approved') return `not refunded: ${outcome.status}`;
  const approved = outcome.args as Refund; // a reviewer may have changed the amount
  return refund(approved, { idempotency_key: outcome.request_id });
}

/** 2. A gated activity: the refund runs only after approval and a passing recheck, once, keyed by the request id. */
const gatedRefund = withApproval(refund, {
  request: (r) => ({
    action: 'refund.create',
    target: `order/${r.order_id}`,
    summary: `Refund ${r.cents} cents on order ${r.order_id}`,
    blast_radius: { cents: r.cents },
    ttl: '1h',
  }),
  recheck: 'orderStillRefundable', // an activity of yours, run right before the refund
});

export async function gatedRefundWorkflow(r: Refund): Promise<string> {
  const result = await gatedRefund(r);
  return result.status === 'executed' ? result.result : `not refunded: ${result.status}`;
}
