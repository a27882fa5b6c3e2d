import { CancellationScope, ParentClosePolicy, condition, proxyActivities, startChild } from '@temporalio/workflow';
import type { GateState, NoticeReceipt } from '../../common/gate-state';
import { noticeChannel, type DeliverNoticeInput, type NoticeFacts, type NoticeKind } from '../../common/notice';
import type { GateActivities } from '../../worker/activities/contracts';
import type { AuditTrail } from './audit-trail';
import { countNotice } from './metrics';
import { noticeDeliveryWorkflow } from '../notice-delivery/notice-delivery';
import { failedSpec, NOTICE_DELIVERY } from '../notice-delivery/delivery';

const { deliverNotice } = proxyActivities<GateActivities>(NOTICE_DELIVERY);

/**
 * The gate's messages to reviewer channels. Every delivery runs in the background (a
 * channel that is down never delays a decision, an escalation or the expiry); a message
 * that went out leaves a receipt in the state, so the ended notice can edit or thread it.
 * Workflow code: deterministic (activities and the workflow clock only).
 */
export class Notices {
  /** Deliveries not finished yet, by notice id: carried over continue-as-new. */
  private readonly pending = new Map<string, DeliverNoticeInput>();

  constructor(
    private readonly state: GateState,
    private readonly trail: AuditTrail,
    private readonly tenant: string | undefined,
  ) {}

  /** Sends the deliveries the previous execution had not finished (at least once). */
  resume(carried: readonly DeliverNoticeInput[] | undefined): void {
    for (const n of carried ?? []) this.deliver(n);
  }

  /** Deliveries still running, for the next execution. */
  handOver(): DeliverNoticeInput[] {
    return [...this.pending.values()];
  }

  /** One notice per target, about this moment of the gate. */
  tell(kind: Exclude<NoticeKind, 'ended'>, targets: readonly string[], level = 0, loop = 0, roles?: string[]): void {
    const facts = this.facts(kind === 'escalated' ? { level, loop, roles_added: roles ?? [] } : {});
    for (const target of targets)
      this.deliver({ notice_id: `${this.state.request_id}:${kind}:${level}:${loop}:${target}`, target, kind, facts });
  }

  /**
   * Brings every message up to date once the gate has ended. When nobody waits for the
   * gate's result (the external executor) the gate delivers the ended notices itself and
   * records their failures in its own trail. A gate whose result a workflow waits for (an
   * agent run's tool gate, `requireApproval`) must not make it wait on a channel: it hands
   * the ended notices to a detached noticeDeliveryWorkflow and ends at once.
   */
  async finish(awaited: boolean): Promise<void> {
    if (!awaited) {
      await condition(() => this.pending.size === 0); // each delivery ends within 60 s
      for (const n of this.ended(this.state.notices ?? [])) this.deliver(n);
      await condition(() => this.pending.size === 0);
      return;
    }
    // Messages still on their way get a fresh ended message (no thread to edit yet).
    const inFlight = [...this.pending.values()].map((n) => ({
      target: n.target,
      channel: noticeChannel(n.target) ?? 'email',
      level: n.facts.level ?? 0,
      loop: n.facts.loop ?? 0,
    }));
    const notices = this.ended([...(this.state.notices ?? []), ...inFlight]);
    if (notices.length === 0) return;
    await startChild(noticeDeliveryWorkflow, {
      workflowId: `notices-${this.state.request_id}`,
      args: [{ request_id: this.state.request_id, payload_sha256: this.state.payload_sha256, notices }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  }

  /**
   * The ended notices: each Slack message is edited in place, every other target gets one
   * message (email in the thread of its first message, Teams a new card).
   */
  private ended(receipts: readonly NoticeReceipt[]): DeliverNoticeInput[] {
    const s = this.state;
    const facts = this.facts({
      outcome: {
        status: s.status,
        at: s.updated_at,
        ...((s.decision?.reviewer_id ?? s.consumed_by) ? { by: s.decision?.reviewer_id ?? s.consumed_by } : {}),
        ...(s.status_reason ? { reason: s.status_reason } : {}),
      },
    });
    const out: DeliverNoticeInput[] = [];
    const told = new Set<string>();
    for (const r of receipts) {
      const perMessage = r.channel === 'slack' && r.thread?.slack;
      if (!perMessage && told.has(r.target)) continue;
      told.add(r.target);
      const [level, loop] = perMessage ? [r.level, r.loop] : [0, 0];
      out.push({
        notice_id: `${s.request_id}:ended:${level}:${loop}:${r.target}`,
        target: r.target,
        kind: 'ended',
        facts,
        ...(r.thread ? { thread: r.thread } : {}),
      });
    }
    return out;
  }

  private facts(extra: Partial<NoticeFacts>): NoticeFacts {
    const s = this.state;
    const p = s.payload;
    return {
      request_id: s.request_id,
      ...(this.tenant ? { tenant: this.tenant } : {}),
      summary: p.summary,
      action: p.action,
      target: p.target,
      agent_id: p.agent_id,
      blast_radius: p.blast_radius,
      expires_at: s.expires_at,
      payload_sha256: s.payload_sha256,
      status: s.status,
      approvals: s.votes.length,
      approvals_required: s.approvals_required,
      sent_at: this.trail.now(), // the gate's clock (deadlines.ts)
      ...extra,
    };
  }

  private deliver(input: DeliverNoticeInput): void {
    this.pending.set(input.notice_id, input);
    // Non-cancellable: a run's cancel must not stop the message that says the gate was cancelled.
    void CancellationScope.nonCancellable(() => deliverNotice(input)).then(
      (r) => {
        this.pending.delete(input.notice_id);
        countNotice(r.channel, 'sent');
        if (input.kind === 'ended') return;
        (this.state.notices ??= []).push({
          target: input.target,
          channel: r.channel,
          level: input.facts.level ?? 0,
          loop: input.facts.loop ?? 0,
          ...(r.thread ? { thread: r.thread } : {}),
        });
      },
      (err: unknown) => {
        this.pending.delete(input.notice_id);
        countNotice(noticeChannel(input.target) ?? 'unknown', 'failed');
        this.trail.append(failedSpec(input, err));
      },
    );
  }
}
