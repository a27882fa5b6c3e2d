import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DecisionMessage } from '../../../src/common/decision';
import type { GateState } from '../../../src/common/gate-state';
import type { GateClient } from '../../../src/client/gate-client';
import type { GrantStore } from '../../../src/store/grant-store';

// What the gate paths (gate-paths.ts, judged-gate-paths.ts) share: the clients, the request, the votes.

/** The requesting agent of every gate in this set. */
export const AGENT = 'agent_billing';

/** The clients a path drives its gate with, as the API would. */
export interface Clients {
  client: Client;
  taskQueue: string;
  /** The API's GateClient with the audit store and no webhook receivers: it writes its updates' events itself. */
  callerWrites: GateClient;
  /** The API's GateClient where webhook receivers may exist: the gate writes every event and sends the webhooks. */
  gateWrites: GateClient;
  /** As `gateWrites`, under a rule file: two `finance` approvals for refunds. */
  finance: GateClient;
  /** As `gateWrites`, under a version 2 rule file and with standing grants, as src/api/server.ts builds it. */
  judged: GateClient;
  /** The grant store of `judged`. */
  grants: GrantStore;
  /** The standing grant the `grant-issue` path gave, for the `grant-use` path that follows it. */
  issuedGrant?: string;
}

export interface GatePath {
  /** Opens the gate and moves it to its end; returns its id. */
  drive(c: Clients): Promise<string>;
  /** Where the gate must end; a recording that went elsewhere is refused. */
  expect: GateState['status'];
  /** The patch markers the gate's history must hold (see docs/upgrading.md, patch schedule). */
  patches?: string[];
}

/** A create body for a 145 USD refund, unique per call. */
export function refund(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    correlation_id: `corr_${randomUUID().slice(0, 8)}`,
    trigger_event_id: `ticket_${randomUUID()}`,
    action: 'stripe.refund.create',
    target: 'ch_3MvICBLkdIwHu7ix0Yx87a11',
    summary: 'Full refund for a damaged shipment',
    blast_radius: { currency: 'usd', amount_cents: 14500 },
    args: { charge: 'ch_3MvICBLkdIwHu7ix0Yx87a11', amount: 14500, reason: 'requested_by_customer' },
    preconditions: { account_status: 'active' },
    ttl_seconds: 3600,
    ...over,
  };
}

export async function create(gates: GateClient, over: Record<string, unknown> = {}) {
  const { request } = await gates.create(refund(over), { agentId: AGENT });
  return request;
}

export function vote(sha: string, over: Partial<DecisionMessage> = {}): DecisionMessage {
  return {
    decision_id: `dec_${randomUUID()}`,
    reviewer_id: 'reviewer_alice',
    decision: 'approve',
    payload_sha256: sha,
    ...over,
  };
}

export async function ended(c: Clients, id: string): Promise<string> {
  await c.client.workflow.getHandle(id).result();
  return id;
}
