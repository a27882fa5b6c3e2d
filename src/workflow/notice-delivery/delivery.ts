import { ActivityFailure, type ActivityOptions } from '@temporalio/workflow';
import { NoticeFailureType, type DeliverNoticeInput } from '../../common/notice';
import type { AuditSpec } from '../../common/gate-state';

// How a gate's notices are delivered, shared by the gate (src/workflow/gate/notices.ts)
// and the detached noticeDeliveryWorkflow.

/**
 * One delivery's whole life: retries end within 60 seconds (docs/notifications.md), after which
 * the gate records `notification.failed`. A target no channel is configured for is not retried.
 */
export const NOTICE_DELIVERY: ActivityOptions = {
  scheduleToCloseTimeout: '60s',
  startToCloseTimeout: '20s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    nonRetryableErrorTypes: [NoticeFailureType.Misconfigured],
  },
};

/** Why a delivery failed, as the activity said it. */
export function failureText(err: unknown): string {
  if (err instanceof ActivityFailure) return err.cause?.message ?? err.message;
  return err instanceof Error ? err.message : String(err);
}

/** The `notification.failed` event of a delivery that did not succeed within its retries. */
export function failedSpec(input: DeliverNoticeInput, err: unknown): AuditSpec {
  return {
    event_type: 'notification.failed',
    actor_type: 'system',
    actor_id: 'approval-gate',
    note: failureText(err),
    data: {
      target: input.target,
      kind: input.kind,
      level: input.facts.level ?? 0,
      loop: input.facts.loop ?? 0,
      error: failureText(err),
      notice_id: input.notice_id,
    },
  };
}
