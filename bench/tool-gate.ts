// Tool-executor gates with a real trip-domain session behind them, so the gate's
// snapshot re-check passes and the submit tool really runs; and the gate worker that
// hosts them, with `executeTool` wrapped to record when the tool begins.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../src/worker/activities';
import { loadConfig } from '../src/config';
import { payloadSha256, type EvidencePayload } from '../src/common/evidence';
import type { GateInput } from '../src/common/gate-state';
import { digest } from '../src/common/hashing';
import type { DomainRegistry } from '../src/domain/registry';
import type { DomainAdapter, DomainContext, DomainSource } from '../src/domain/types';
import { openSqlite } from '../src/store/db';
import { dataDir, taskQueue, type BenchContext } from './context';
import { AGENT_ID } from './gate-requests';
import { now } from './stats';
import { running, type RunningWorker, type StartTimes } from './workers';
import { tripDomain } from '../examples/trip';

/** When each re-check began and ended, by trip session (performance.now() in this process). */
export type RecheckTimes = Map<string, { start: number; end: number }>;

/**
 * A gate worker built like `createGateWorker` (src/worker/create-gate-worker.ts: production bundle and
 * bundler options, `maxCachedWorkflows` from the config, every activity of
 * `createActivities`), except that its trip domain records when each `execute` begins
 * (by idempotency key, = request id for the gated submit) and when each re-check begins
 * and ends (by session): the tool's start is the effect's, wherever the gate re-checks
 * (in a local activity, or inside the tool's activity). createGateWorker takes no domain
 * wrappers, hence this copy.
 */
export async function startToolGateWorker(ctx: BenchContext): Promise<
  RunningWorker & {
    toolStarts: StartTimes;
    rechecks: RecheckTimes;
    domains: DomainRegistry;
    connection: NativeConnection;
  }
> {
  const queue = taskQueue('tool');
  const db = openSqlite(path.join(dataDir(ctx, 'tool'), 'gate.db'));
  const toolStarts: StartTimes = new Map();
  const rechecks: RecheckTimes = new Map();
  const timedTrip: DomainSource = async (c) => {
    const trip = await (tripDomain as (c: DomainContext) => Promise<DomainAdapter>)(c);
    return {
      ...trip,
      async recheck(session, tool, input, snapshot) {
        const start = now();
        try {
          return await trip.recheck(session, tool, input, snapshot);
        } finally {
          rechecks.set(session, { start, end: now() });
        }
      },
      async execute(session, tool, input, key) {
        toolStarts.set(key, now());
        return trip.execute(session, tool, input, key);
      },
    };
  };
  const { activities, domains } = await createActivities({ db, domains: [timedTrip] });
  const connection = await NativeConnection.connect({ address: ctx.server.address });
  const worker = await Worker.create({
    connection,
    namespace: ctx.cfg.namespace,
    taskQueue: queue,
    workflowBundle: { codePath: ctx.bundles.gate }, // built with workflowBundlerOptions() (bundles.ts)
    maxCachedWorkflows: loadConfig().workflowCacheSize,
    activities,
  });
  const r = running(worker, queue, async () => {
    await connection.close();
    await db.close();
  });
  return { ...r, toolStarts, rechecks, domains, connection };
}

/**
 * A fresh trip session with a drafted and validated trip (one approver's tier), and the
 * GateInput the agent loop would build for its `submit_trip_request` plan
 * (src/workflow/agent-run/tool-call.ts `gate()`).
 */
export async function preparedToolGate(
  domains: DomainRegistry,
  i: number,
): Promise<{ requestId: string; input: GateInput }> {
  const trip = domains.get('trip');
  const session = `run_bench_${randomUUID().slice(0, 12)}`;
  const allowed = async (tool: string, args: Record<string, unknown>): Promise<void> => {
    const plan = await trip.plan(session, tool, args);
    if (plan.policy !== 'allow') throw new Error(`trip plan for ${tool}: expected allow, got ${JSON.stringify(plan)}`);
    await trip.execute(session, tool, plan.input, `${session}:${tool}`);
  };
  await allowed('draft_trip_request', { destination: 'Busan', days: 2, budget: 800_000 + i });
  await allowed('validate_trip_request', {});
  const plan = await trip.plan(session, 'submit_trip_request', {});
  if (plan.policy !== 'require_approval')
    throw new Error(`trip plan for submit: expected require_approval, got ${JSON.stringify(plan)}`);
  const callId = 'call_submit';
  const requestId = `${session}-${callId}`;
  const payload: EvidencePayload = {
    request_id: requestId,
    correlation_id: session,
    agent_id: AGENT_ID,
    trigger_event_id: `${session}/${callId}`,
    ...plan.evidence,
    args: plan.input,
    idempotency_key: requestId,
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
  };
  const input: GateInput = {
    payload,
    payload_sha256: payloadSha256(payload),
    approvals_required: plan.approvals_required,
    executor: 'tool',
    consume_ttl_seconds: 60,
    create_sha256: digest({ run_id: session, call_id: callId }),
    tool: { domain: 'trip', session_id: session },
    run_id: session,
    call_id: callId,
  };
  return { requestId, input };
}
