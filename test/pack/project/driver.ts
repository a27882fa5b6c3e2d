// Runs inside the throwaway project of test/pack/pack.test.ts, against the installed tarball only:
// the three ways in of docs/library.md and docs/agent-runs.md, each through the HTTP API.
// Prints one JSON line of what happened; pack.test.ts checks it.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { startGateServer } from './gate-server';
import { createRefundWorker } from './refund-worker';

const keys = { agent: process.env.PACK_AGENT_KEY!, reviewer: process.env.PACK_REVIEWER_KEY! };

async function main(): Promise<void> {
  const { api, worker: gateWorker } = await startGateServer();
  const queue = `refunds-${process.pid}`;
  const { worker, connection: workerConnection } = await createRefundWorker(queue);
  const running = worker.run();
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const client = new Client({ connection });
  const http = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${api.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const until = async <T>(f: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 600; i++) {
      const v = await f();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('timed out');
  };
  /** The reviewer finds the pending request over HTTP and decides on it. */
  const decide = async (requestId: string, decision: Record<string, unknown>) => {
    const listed = await until(async () => {
      const r = await http('GET', '/v1/approvals?status=requested', keys.reviewer);
      return (r.body.approvals as { request_id: string }[]).find((a) => a.request_id === requestId);
    });
    const gate = (await http('GET', `/v1/approvals/${listed.request_id}`, keys.reviewer)).body;
    const r = await http('POST', `/v1/approvals/${requestId}/decision`, keys.reviewer, {
      ...decision,
      payload_sha256: gate.payload_sha256,
    });
    if (r.status !== 200) throw new Error(`decision refused: ${JSON.stringify(r.body)}`);
    return gate;
  };
  const ledger = () =>
    fs.existsSync(process.env.REFUND_LEDGER!)
      ? fs
          .readFileSync(process.env.REFUND_LEDGER!, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  const start = (type: string, args: unknown) =>
    client.workflow.start(type, { taskQueue: queue, workflowId: `${type}-${randomUUID()}`, args: [args] });

  try {
    // (a) a workflow of its own calls requireApproval; the reviewer modifies the amount and approves over HTTP.
    const a = await start('refundWorkflow', { order_id: 'A-1', cents: 1200 });
    const aGate = await decide(`${a.workflowId}-approval-1`, { decision: 'modify', args: { cents: 1000 } });
    const aResult = await a.result();
    const aAfter = (await http('GET', `/v1/approvals/${a.workflowId}-approval-1`, keys.reviewer)).body;

    // (b) a withApproval-wrapped activity: once after approval, never after a rejection.
    const b1 = await start('gatedRefundWorkflow', { order_id: 'B-1', cents: 300 });
    await decide(`${b1.workflowId}-approval-1`, { decision: 'approve' });
    const b1Result = await b1.result();
    const b2 = await start('gatedRefundWorkflow', { order_id: 'B-2', cents: 400 });
    await decide(`${b2.workflowId}-approval-1`, { decision: 'reject', reason: 'not eligible' });
    const b2Result = await b2.result();

    // (c) its own domain with one gated tool, through POST /v1/runs with a scripted model.
    const created = await http('POST', '/v1/runs', keys.agent, {
      goal: 'Refund 700 cents on order C-1',
      domain: 'refunds',
      model: {
        kind: 'scripted',
        turns: [
          { tool_calls: [{ id: 'c1', name: 'issue_refund', args: { order_id: 'C-1', cents: 700 } }] },
          { content: 'Refunded 700 cents on order C-1.' },
        ],
      },
    });
    const runId = created.body.run_id as string;
    const cRequest = await until(async () => {
      const v = (await http('GET', `/v1/runs/${runId}`, keys.agent)).body;
      return v.pending_approvals?.[0]?.request_id as string | undefined;
    });
    await decide(cRequest, { decision: 'approve' });
    const run = await until(async () => {
      const v = (await http('GET', `/v1/runs/${runId}`, keys.agent)).body;
      return v.status === 'completed' || v.status === 'failed' ? v : undefined;
    });
    const domainRows = (await http('GET', '/v1/domains/refunds/refunds', keys.agent)).body;
    const unknown = await http('POST', '/v1/runs', keys.agent, {
      goal: 'x',
      domain: 'trip',
      model: { kind: 'scripted', turns: [] },
    });

    console.log(
      JSON.stringify({
        a: { result: aResult, correlation_id: aGate.payload.correlation_id, status: aAfter.status },
        b: { approved: b1Result, rejected: b2Result, b1Key: `${b1.workflowId}-approval-1` },
        c: {
          created: created.status,
          run_status: run.status,
          tool_results: run.messages.filter((m: { role: string }) => m.role === 'tool'),
          rows: domainRows,
          unknown_domain: unknown.status,
        },
        ledger: ledger(),
      }),
    );
  } finally {
    worker.shutdown();
    await running;
    await workerConnection.close();
    await connection.close();
    await api.close();
    await gateWorker.shutdown();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
