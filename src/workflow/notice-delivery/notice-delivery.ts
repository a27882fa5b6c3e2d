import { proxyActivities } from '@temporalio/workflow';
import type { DeliverNoticeInput } from '../../common/notice';
import { noticeChannel } from '../../common/notice';
import type { GateActivities } from '../../worker/activities/contracts';
import { AuditTrail } from '../gate/audit-trail';
import { countNotice } from '../gate/metrics';
import { failedSpec, NOTICE_DELIVERY } from './delivery';

/** Input of noticeDeliveryWorkflow: a gate's ended notices. */
export interface NoticeDeliveryInput {
  request_id: string;
  payload_sha256: string;
  notices: DeliverNoticeInput[];
}

const { deliverNotice } = proxyActivities<GateActivities>(NOTICE_DELIVERY);

/**
 * Delivers the ended notices of a gate whose result a workflow waits for (an agent run's
 * tool gate, `requireApproval`), so that no channel holds that workflow back. Started
 * detached (ABANDON) by the gate as it ends. The gate's own chain is closed by then, so a
 * failure is recorded in the chain `notices:<request id>` of the same store.
 */
export async function noticeDeliveryWorkflow(input: NoticeDeliveryInput): Promise<{ sent: number; failed: number }> {
  const trail = new AuditTrail(`notices:${input.request_id}`, input.payload_sha256, () => ({}));
  let sent = 0;
  await Promise.all(
    input.notices.map((n) =>
      deliverNotice(n).then(
        (r) => {
          sent++;
          countNotice(r.channel, 'sent');
        },
        (err: unknown) => {
          countNotice(noticeChannel(n.target) ?? 'unknown', 'failed');
          trail.append(failedSpec(n, err));
        },
      ),
    ),
  );
  await trail.flush();
  return { sent, failed: input.notices.length - sent };
}
