import { proxyActivities } from '@temporalio/workflow';
import type { DeliverWebhooksInput, DeliverWebhooksResult, GateActivities } from '../../worker/activities/contracts';

const { deliverWebhooks } = proxyActivities<GateActivities>({
  startToCloseTimeout: '2m',
  heartbeatTimeout: '1m',
  // Receivers that stay down get retried for about a day, with backoff.
  retry: { initialInterval: '5s', maximumInterval: '30m', backoffCoefficient: 2, maximumAttempts: 60 },
});

/**
 * Keeps delivering one webhook after its gate has finished, so a receiver that is down
 * never holds a gate's (or a run's) outcome back. Started detached (ABANDON) by the gate.
 */
export async function webhookDeliveryWorkflow(input: DeliverWebhooksInput): Promise<DeliverWebhooksResult> {
  return deliverWebhooks(input);
}
