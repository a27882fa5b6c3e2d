// The workflow bundle's entry: every workflow the worker registers.
//
// Each workflow instance evaluates the modules it requires in its own module cache (the
// SDK's reusable V8 context), so a module required here at the top would be built again
// for every cached gate. Requiring each workflow's module when it first runs keeps a gate
// from building the agent loop's modules (and their schemas) it never uses: measured in
// bench/results/2026-12-01-pending-gate-memory.md. The `require` calls are bundled eagerly by webpack, evaluated lazily.
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as Gate from './gate/approval-gate';
import type * as Run from './agent-run/agent-run';
import type * as Delivery from './webhook-delivery/webhook-delivery';
import type * as Notices from './notice-delivery/notice-delivery';

export function approvalGateWorkflow(
  ...args: Parameters<typeof Gate.approvalGateWorkflow>
): ReturnType<typeof Gate.approvalGateWorkflow> {
  return (require('./gate/approval-gate') as typeof Gate).approvalGateWorkflow(...args);
}

export function agentRunWorkflow(
  ...args: Parameters<typeof Run.agentRunWorkflow>
): ReturnType<typeof Run.agentRunWorkflow> {
  return (require('./agent-run/agent-run') as typeof Run).agentRunWorkflow(...args);
}

export function webhookDeliveryWorkflow(
  ...args: Parameters<typeof Delivery.webhookDeliveryWorkflow>
): ReturnType<typeof Delivery.webhookDeliveryWorkflow> {
  return (require('./webhook-delivery/webhook-delivery') as typeof Delivery).webhookDeliveryWorkflow(...args);
}

export function noticeDeliveryWorkflow(
  ...args: Parameters<typeof Notices.noticeDeliveryWorkflow>
): ReturnType<typeof Notices.noticeDeliveryWorkflow> {
  return (require('./notice-delivery/notice-delivery') as typeof Notices).noticeDeliveryWorkflow(...args);
}
