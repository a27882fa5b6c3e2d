// `approval-gate/workflow`: workflow-safe (no Node modules, no I/O). Import it in your
// workflow code; your worker bundles it.
export { requireApproval } from './require-approval';
export {
  gatedActivities,
  withApproval,
  type ApprovalSpec,
  type GatedActivity,
  type ExecutedOutcome,
  type GatedCall,
  type GatedOutcome,
  type InvalidatedOutcome,
} from './with-approval';
export type {
  ApprovalOutcome,
  ApprovalRequest,
  ApprovedOutcome,
  CancelledOutcome,
  DeniedOutcome,
  ExpiredOutcome,
  RequireApprovalOptions,
} from './types';
export type { HandOverRecheckInput as RecheckInput } from './gate/hand-over';
export type { RecheckResult } from '../domain/types';
// The gate's workflows, for a workflows module that must register them itself (a prebuilt
// bundle); `approvalGatePlugin` adds them to a worker that bundles from `workflowsPath`.
export { approvalGateWorkflow, noticeDeliveryWorkflow, webhookDeliveryWorkflow } from './bundle-entry';
