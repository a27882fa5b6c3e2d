// The workflow bundle's entry: every workflow the worker registers.
export { approvalGateWorkflow } from './approval-gate';
export { agentRunWorkflow } from './agent-run';
export { webhookDeliveryWorkflow } from './webhook-delivery';
