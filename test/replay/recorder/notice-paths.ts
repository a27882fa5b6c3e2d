import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { AuditEvent } from '../../../src/common/audit';
import type { GateState } from '../../../src/common/gate-state';
import { noticeChannel, type DeliverNoticeInput, type DeliverNoticeResult } from '../../../src/common/notice';
import { GateClient } from '../../../src/client/gate-client';
import { AuditStore } from '../../../src/store/audit-store';
import { openDb } from '../../../src/store/db';
import { getAuditQuery, getGateQuery } from '../../../src/workflow/gate/messages';
import { saveExecutions } from './common';
import { refund, type Clients, type GatePath } from './gate-kit';

// Gates that tell reviewers (patch `gate-notices`): an escalation chain and notices at
// creation, at each level and at the end. Recorded from 0.2.0 on (test/replay/README.md).

const AGENT = 'agent_billing';
const TARGETS = { requested: ['slack:#refunds', 'email:leads@example.com'] };

/** A path of this set: driven with the API's GateClient where the gate writes its trail. */
interface NoticePath extends Omit<GatePath, 'drive'> {
  drive(c: Pick<Clients, 'client' | 'gateWrites'>): Promise<string>;
}

const NOTICES = 'gate-notices';
/** From 0.4.0 on: the gate's clock and its TTL's timer armed at the start (src/workflow/gate/deadlines.ts). */
const TIMER_CLOCK = 'gate-timer-clock';

const vote = (sha: string, reviewer: string, decision: 'approve' | 'reject' = 'approve') => ({
  decision_id: `dec_${randomUUID()}`,
  reviewer_id: reviewer,
  decision,
  payload_sha256: sha,
  ...(decision === 'reject' ? { reason: 'already refunded' } : {}),
});

async function escalations(client: Client, id: string): Promise<number> {
  const events: AuditEvent[] = await client.workflow.getHandle(id).query(getAuditQuery);
  return events.filter((e) => e.event_type === 'approval.escalated').length;
}

async function untilEscalated(client: Client, id: string, n: number): Promise<void> {
  while ((await escalations(client, id)) < n) await new Promise((r) => setTimeout(r, 100));
}

export const NOTICE_PATHS: Record<string, NoticePath> = {
  /** No decision: told at creation, escalated twice (the second level adds a role), then it expires and every message is ended. */
  'chain-expiry': {
    drive: async ({ gateWrites: gates, client }) => {
      const { request } = await gates.create(
        refund({
          ttl_seconds: 6,
          notify: TARGETS.requested,
          escalation: {
            levels: [
              { after: 2, notify: ['slack:#escalations'] },
              { after: 4, notify: ['email:cfo@example.com'], roles: ['cfo'] },
            ],
          },
        }),
        { agentId: AGENT },
      );
      await client.workflow.getHandle(request.request_id).result();
      return request.request_id;
    },
    expect: 'expired',
    patches: [NOTICES, TIMER_CLOCK],
  },
  /** Approved by quorum after level 1 (one vote before it): the chain stops, the agent consumes, the messages end. */
  'decided-between-levels': {
    drive: async ({ gateWrites: gates, client }) => {
      const { request } = await gates.create(
        refund({
          ttl_seconds: 60,
          approvals_required: 2,
          notify: TARGETS.requested,
          escalation: { levels: [{ after: 2, notify: ['slack:#escalations'] }, { after: 30 }], repeat: 1 },
        }),
        { agentId: AGENT },
      );
      await gates.decide(request.request_id, vote(request.payload_sha256, 'reviewer_alice'));
      await untilEscalated(client, request.request_id, 1);
      await gates.decide(request.request_id, vote(request.payload_sha256, 'reviewer_bob'));
      await gates.consume(request.request_id, AGENT);
      await client.workflow.getHandle(request.request_id).result();
      return request.request_id;
    },
    expect: 'consumed',
    patches: [NOTICES, TIMER_CLOCK],
  },
  /** Told at creation only (no chain), rejected: each message is ended. */
  'notified-ended': {
    drive: async ({ gateWrites: gates, client }) => {
      const { request } = await gates.create(refund({ ttl_seconds: 600, notify: TARGETS.requested }), {
        agentId: AGENT,
      });
      // Let the creation notices land first, so the ended ones edit and thread them.
      const handle = client.workflow.getHandle(request.request_id);
      while (((await handle.query(getGateQuery)) as GateState).notices?.length !== 2)
        await new Promise((r) => setTimeout(r, 100));
      await gates.decide(request.request_id, vote(request.payload_sha256, 'reviewer_alice', 'reject'));
      await handle.result();
      return request.request_id;
    },
    expect: 'denied',
    patches: [NOTICES],
  },
};

/** A channel that takes every message: Slack answers a channel and ts, email the thread root. */
export async function deliverNotice(input: DeliverNoticeInput): Promise<DeliverNoticeResult> {
  const channel = noticeChannel(input.target)!;
  const thread =
    channel === 'slack'
      ? { slack: { channel: 'C0123456789', ts: `1700000000.${input.notice_id.length}` } }
      : channel === 'email'
        ? { email: { message_id: `<${input.facts.request_id}@gate.example.com>` } }
        : undefined;
  return { target: input.target, channel, ...(thread ? { thread } : {}) };
}

/** Records every notice path into `dir`. */
export async function recordNoticePaths(
  client: Client,
  withWorker: (activities: object, run: (taskQueue: string) => Promise<void>) => Promise<void>,
  dir: string,
): Promise<void> {
  const db = openDb({ sqliteFile: ':memory:' });
  const audit = new AuditStore(db);
  await audit.migrate();
  const activities = {
    recordAuditEvents: async ({ events }: { events: AuditEvent[] }) => (
      await audit.appendMany(events),
      { webhook_receivers: 1 }
    ),
    deliverWebhooks: async () => ({ delivered: [] as string[] }),
    deliverNotice,
  };
  try {
    await withWorker(activities, async (taskQueue) => {
      const gates = new GateClient(client, { taskQueue, audit });
      for (const [name, p] of Object.entries(NOTICE_PATHS)) {
        const id = await p.drive({ client, gateWrites: gates });
        const state = await client.workflow.getHandle(id).query(getGateQuery);
        if (state.status !== p.expect) throw new Error(`${name}: the gate ended ${state.status}; expected ${p.expect}`);
        await saveExecutions(client, dir, name, id, state.status);
      }
    });
  } finally {
    await db.close();
  }
}
