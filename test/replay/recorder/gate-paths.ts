import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { AuditEvent } from '../../../src/common/audit';
import { GateClient } from '../../../src/client/gate-client';
import { issueGrant } from '../../../src/client/grants';
import { prepareCreate } from '../../../src/client/create-request';
import { startOptions } from '../../../src/client/start-options';
import { parsePolicyText } from '../../../src/policy/parse';
import { AuditStore } from '../../../src/store/audit-store';
import { openDb } from '../../../src/store/db';
import { GrantStore } from '../../../src/store/grant-store';
import type { IssueGrantInput } from '../../../src/worker/activities/contracts';
import { getGateQuery } from '../../../src/workflow/gate/messages';
import { expectPatches, saveExecutions, voteAsFinance } from './common';
import { AGENT, create, ended, refund, vote, type Clients, type GatePath } from './gate-kit';
import { JUDGED_GATE_PATHS, JUDGED_GATE_RULES } from './judged-gate-paths';
import { deliverNotice, NOTICE_PATHS } from './notice-paths';

export const GATE_PATHS: Record<string, GatePath> = {
  /** External executor: approved by update, consumed once by the agent; the client writes the events. */
  'approve-consume': {
    drive: async (c) => {
      const r = await create(c.callerWrites);
      await c.callerWrites.decide(r.request_id, vote(r.payload_sha256, { note: 'matches the ticket' }));
      await c.callerWrites.consume(r.request_id, AGENT);
      return ended(c, r.request_id);
    },
    expect: 'consumed',
  },
  /** Two approvals from two reviewers (quorum), then the consume; the gate writes its trail and sends webhooks. */
  'quorum-consume': {
    drive: async (c) => {
      const r = await create(c.gateWrites, { approvals_required: 2 });
      await c.gateWrites.decide(r.request_id, vote(r.payload_sha256, { reviewer_id: 'reviewer_alice' }));
      await c.gateWrites.decide(r.request_id, vote(r.payload_sha256, { reviewer_id: 'reviewer_bob' }));
      await c.gateWrites.consume(r.request_id, AGENT);
      return ended(c, r.request_id);
    },
    expect: 'consumed',
  },
  /** A reviewer changes the amount; the agent consumes the modified args. */
  'modify-consume': {
    drive: async (c) => {
      const r = await create(c.callerWrites);
      await c.callerWrites.decide(
        r.request_id,
        vote(r.payload_sha256, { decision: 'modify', args: { amount: 9000 }, note: 'partial refund only' }),
      );
      const consumed = await c.callerWrites.consume(r.request_id, AGENT);
      if ((consumed.args as { amount?: number }).amount !== 9000) throw new Error('modify-consume: args not modified');
      return ended(c, r.request_id);
    },
    expect: 'consumed',
  },
  /** Rejected by update, with a reason. */
  'reject-update': {
    drive: async (c) => {
      const r = await create(c.gateWrites);
      await c.gateWrites.decide(
        r.request_id,
        vote(r.payload_sha256, { decision: 'reject', reason: 'already refunded' }),
      );
      return ended(c, r.request_id);
    },
    expect: 'denied',
  },
  /** Rejected by signal, the path any service can use. */
  'reject-signal': {
    drive: async (c) => {
      const r = await create(c.gateWrites);
      await c.gateWrites.signalDecision(
        r.request_id,
        vote(r.payload_sha256, { decision: 'reject', reason: 'the charge was already refunded' }),
      );
      return ended(c, r.request_id);
    },
    expect: 'denied',
  },
  /** No decision: the escalation notice goes out a second before the 3-second TTL, then it fails closed. */
  'ttl-expiry': {
    drive: async (c) =>
      ended(c, (await create(c.gateWrites, { ttl_seconds: 3, escalate_before_seconds: 1 })).request_id),
    expect: 'expired',
  },
  /** Approved but never consumed: it expires at the 1-second consume deadline. */
  'consume-expiry': {
    drive: async (c) => {
      const r = await create(c.callerWrites, { consume_ttl_seconds: 1 });
      await c.callerWrites.decide(r.request_id, vote(r.payload_sha256));
      return ended(c, r.request_id);
    },
    expect: 'expired',
  },
  /** Cancelled by the requesting agent while pending. */
  cancel: {
    drive: async (c) => {
      const r = await create(c.gateWrites);
      await c.gateWrites.cancel(r.request_id, AGENT, 'the customer withdrew the claim');
      return ended(c, r.request_id);
    },
    expect: 'cancelled',
  },
  /**
   * Flooded with refused decisions past a 60-event history limit: the gate continues as new
   * (one file per execution), then is approved and consumed on the last execution.
   */
  'continue-as-new': {
    drive: async (c) => {
      const { requestId, input } = prepareCreate(refund(), { agentId: AGENT });
      await c.client.workflow.start(
        'approvalGateWorkflow',
        startOptions(requestId, { ...input, max_history_events: 60 }, c.taskQueue, randomUUID()),
      );
      for (let i = 0; i < 70; i++)
        await c.gateWrites.signalDecision(
          requestId,
          vote('0'.repeat(64), { reviewer_id: 'mallory', decision_id: `bad_${i}` }),
        );
      await c.gateWrites.decide(requestId, vote(input.payload_sha256));
      await c.gateWrites.consume(requestId, AGENT);
      return ended(c, requestId);
    },
    expect: 'consumed',
  },
  /** Under the rule file: a vote without the role (by signal) is refused and audited, two finance votes decide. */
  'reviewer-roles': {
    drive: async (c) => {
      const r = await create(c.finance, { action: 'refund.create' });
      const gate = c.client.workflow.getHandle(r.request_id);
      await voteAsFinance(gate, 'reviewer_support');
      await c.finance.consume(r.request_id, AGENT);
      const state = await gate.query(getGateQuery);
      if (state.votes.length !== 2) throw new Error(`reviewer-roles: ${state.votes.length} votes, expected 2`);
      return ended(c, r.request_id);
    },
    expect: 'consumed',
  },
};

/** The rule file of the `finance` client. */
const FINANCE_RULES = 'rules:\n  - action: refund.*\n    roles: [finance]\n    min_approvals: 2\n';

/**
 * Store activities on `audit`; webhook receivers exist, so the gate's batches also schedule
 * webhook deliveries. Grants the gates give are stored in `grants`, as a worker stores them.
 */
function gateActivities(audit: AuditStore, grants: GrantStore) {
  return {
    issueGrant: async ({ grant, tenant }: IssueGrantInput) => (
      await issueGrant(grants, audit, grant, tenant),
      { stored: true }
    ),
    recordAuditEvents: async ({ events }: { events: AuditEvent[] }) => (
      await audit.appendMany(events),
      { webhook_receivers: 1 }
    ),
    deliverWebhooks: async () => ({ delivered: [] as string[] }),
    deliverNotice, // a channel that takes every message (the notice paths)
  };
}

/** Records every gate path (0.1.0's, then those added since) into `dir`, on a worker with the gate's store activities. */
export async function recordGatePaths(
  client: Client,
  withWorker: (activities: object, run: (taskQueue: string) => Promise<void>) => Promise<void>,
  dir: string,
): Promise<void> {
  const db = openDb({ sqliteFile: ':memory:' });
  const audit = new AuditStore(db);
  const grants = new GrantStore(db);
  await audit.migrate();
  await grants.migrate();
  try {
    await withWorker(gateActivities(audit, grants), async (taskQueue) => {
      const c: Clients = {
        client,
        taskQueue,
        callerWrites: new GateClient(client, { taskQueue, audit, webhookReceivers: 0 }),
        gateWrites: new GateClient(client, { taskQueue, audit }),
        finance: new GateClient(client, { taskQueue, audit, policy: parsePolicyText(FINANCE_RULES, 'rules.yaml') }),
        judged: new GateClient(client, {
          taskQueue,
          audit,
          policy: parsePolicyText(JUDGED_GATE_RULES, 'rules.yaml'),
          grants,
        }),
        grants,
      };
      for (const [name, p] of Object.entries({ ...GATE_PATHS, ...JUDGED_GATE_PATHS, ...NOTICE_PATHS })) {
        const id = await p.drive(c);
        const state = await client.workflow.getHandle(id).query(getGateQuery);
        if (state.status !== p.expect) throw new Error(`${name}: the gate ended ${state.status}; expected ${p.expect}`);
        await expectPatches(client, name, id, p.patches ?? []);
        const executions = await saveExecutions(client, dir, name, id, state.status);
        if (name === 'continue-as-new' && executions < 2)
          throw new Error(`continue-as-new: the gate ran in ${executions} execution; expected it to continue as new`);
      }
    });
  } finally {
    await db.close();
  }
}
