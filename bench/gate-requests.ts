// External-executor gates as the bench creates them: a create body as an agent would
// send it, created by the API's own GateClient with the worker's audit store (so, as
// behind the API, the client writes each gate's first audit event).
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, type WorkflowHandle } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { GateClient } from '../src/client/gate-client';
import { loadConfig } from '../src/config';
import { isTransientRejection } from '../src/client/temporal-errors';
import type { DecisionMessage } from '../src/common/decision';
import { AuditStore } from '../src/store/audit-store';
import { openSqlite } from '../src/store/db';
import type { approvalGateWorkflow } from '../src/workflow/gate/approval-gate';
import type { BenchContext } from './context';
import { sleep } from './stats';

export const AGENT_ID = 'bench-agent';
export const REVIEWER_ID = 'bench-reviewer';

/**
 * This bench process's part of every trigger_event_id and bare workflow id: a gate's
 * request id derives from its body, so without it a second run against the same server (a
 * `gate stack` kept up) would meet the first run's closed gates ("is consumed and closed").
 */
export const BENCH_RUN = randomUUID().slice(0, 8);

/** A create body (docs/http-api.md), unique per (run, tag, i) through its trigger_event_id. */
export function createBody(
  tag: string,
  i: number,
  ttlSeconds = 3600,
): { args: Record<string, unknown> } & Record<string, unknown> {
  return {
    correlation_id: `bench_${tag}`,
    trigger_event_id: `evt_${BENCH_RUN}_${tag}_${i}`,
    action: 'refund.create',
    target: `ch_${tag}_${i}`,
    summary: `Refund ${(1000 + i) / 100} EUR on charge ch_${i}`,
    blast_radius: { amount_cents: 1000 + i },
    args: { charge: `ch_${tag}_${i}`, amount_cents: 1000 + i, currency: 'eur' },
    preconditions: { charge_status: 'succeeded' },
    ttl_seconds: ttlSeconds,
  };
}

export interface StartedGate {
  id: string;
  payloadSha256: string;
  handle: WorkflowHandle<typeof approvalGateWorkflow>;
}

/**
 * The client one kind of a section uses (BENCH_CLIENT): with `worker`, a client on that
 * kind's in-process worker connection, as `gate dev` runs its API; with `own`, the bench's
 * own client.
 */
export function sectionClient(ctx: BenchContext, connection: NativeConnection): Client {
  return ctx.cfg.client === 'worker' ? new Client({ connection, namespace: ctx.cfg.namespace }) : ctx.client;
}

/**
 * GateClient as the API configures it: the audit store of the worker in `dataDir`, no
 * webhook receivers.
 * `sharesWorker`: the client is on the gate worker's connection, as `gate dev`'s API is,
 * so its creates are eager when GATE_EAGER_START is on.
 */
export function apiGateClient(
  client: Client,
  queue: string,
  dataDir: string,
  sharesWorker = false,
): GateClient & { close(): Promise<void> } {
  const db = openSqlite(path.join(dataDir, 'gate.db'));
  const cfg = loadConfig(process.env);
  const gates = new GateClient(client, {
    taskQueue: queue,
    audit: new AuditStore(db),
    webhookReceivers: 0,
    eagerStart: sharesWorker && cfg.eagerStart === true,
  });
  return Object.assign(gates, { close: () => db.close() });
}

/** Creates one external gate through GateClient.create (what POST /v1/approvals runs, without HTTP). */
export async function startGate(
  client: Client,
  gates: GateClient,
  tag: string,
  i: number,
  ttlSeconds?: number,
): Promise<StartedGate> {
  const { request } = await gates.create(createBody(tag, i, ttlSeconds), { agentId: AGENT_ID });
  const handle = client.workflow.getHandle<typeof approvalGateWorkflow>(request.request_id);
  return { id: request.request_id, payloadSha256: request.payload_sha256, handle };
}

/** An approval by the bench's reviewer, bound to the request's payload hash. */
export function approval(g: { id: string; payloadSha256: string }): DecisionMessage {
  return {
    request_id: g.id,
    decision_id: randomUUID(),
    reviewer_id: REVIEWER_ID,
    decision: 'approve',
    payload_sha256: g.payloadSha256,
  };
}

/** Counts the retries `retryTransient` made, per figure. */
export interface RetryCounter {
  retries: number;
}

/**
 * Retries a call the server turned away for load (RESOURCE_EXHAUSTED / UNAVAILABLE),
 * with GateClient's backoff; used on bare and gate calls alike so neither is favoured.
 */
export async function retryTransient<T>(fn: () => Promise<T>, counter?: RetryCounter): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransientRejection(err) || attempt >= 6) throw err;
      if (counter) counter.retries++;
      await sleep(50 * 2 ** attempt + Math.random() * 50);
    }
  }
}
