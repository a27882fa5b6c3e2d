// `npm run demo`: the main job end to end on the embedded stack. Part 1 is one gate
// over HTTP (create, pending, approve, consume, audit). Part 2 is the trip agent in
// four runs: approve at 800,000; modify to 500,000; reject with a reason; a read-only
// question. Everything stays in the Temporal Web UI. `--exit` stops at the end.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config';
import { startDevStack } from '../src/dev/dev-stack';
import { tripDomain } from '../examples/trip';
import { gateDbFile } from '../src/worker/create-gate-worker';
import { openDb } from '../src/store/db';
import { KeyStore } from '../src/store/key-store';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function main(): Promise<void> {
  process.env.GATE_LOG_LEVEL ??= 'warn'; // the demo prints its own story; request logs would bury it
  const cfg = loadConfig();
  // The example domain, registered as any user registers theirs.
  const stack = await startDevStack(cfg, (l) => console.log(`  ${l}`), [tripDomain]);
  const api = makeApi(stack.apiUrl);
  const db = openDb({ databaseUrl: cfg.databaseUrl, sqliteFile: gateDbFile(cfg) });
  const keys = new KeyStore(db);
  await keys.migrate();
  const tag = randomUUID().slice(0, 6);
  const agent = await keys.create('agent', `demo-agent-${tag}`);
  const alice = await keys.create('reviewer', `alice-${tag}`);
  await db.close();

  try {
    await gateDemo(api, agent.key, alice.key);
    await tripDemo(api, agent.key, alice.key);
    const list = await api('GET', '/v1/domains/trip/submissions', agent.key);
    heading('Submissions in the domain store (GET /v1/domains/trip/submissions)');
    for (const s of list.body as Json[])
      console.log(
        `  ${s.submission_id}  ${s.destination} ${s.days}d  ${s.budget.toLocaleString('en-US')} KRW  request ${s.request_id}`,
      );
  } catch (err) {
    await stack.stop();
    throw err;
  }
  heading('Done');
  console.log(
    `  Temporal Web UI: ${stack.uiUrl ?? '(external server)'}  (filter: GateStatus="consumed" or WorkflowType="agentRunWorkflow")`,
  );
  console.log(`  Reviewer page:   ${stack.apiUrl}/`);
  if (process.argv.includes('--exit')) {
    await stack.stop();
    return;
  }
  console.log('  The stack keeps running so you can look around; Ctrl-C stops it (state stays in GATE_DATA_DIR).');
  await new Promise<void>((resolve) => process.once('SIGINT', () => void stack.stop().then(resolve)));
}

async function gateDemo(api: Api, agentKey: string, reviewerKey: string): Promise<void> {
  heading('Part 1: one approval gate over HTTP');
  const created = await api('POST', '/v1/approvals', agentKey, {
    correlation_id: `corr_${randomUUID().slice(0, 8)}`,
    trigger_event_id: `ticket-4081-${randomUUID().slice(0, 8)}`,
    action: 'stripe.refund.create',
    target: 'ch_3MvICBLkdIwHu7ix0Yx87a11',
    summary: 'Full refund for damaged shipment per ticket #4081',
    blast_radius: { currency: 'usd', amount_cents: 14500 },
    args: { charge: 'ch_3MvICBLkdIwHu7ix0Yx87a11', amount: 14500, reason: 'requested_by_customer' },
    ttl_seconds: 600,
  });
  const id = created.body.request_id as string;
  console.log(
    `  POST /v1/approvals -> ${created.status} ${id} (${created.body.status}), payload_sha256 ${String(created.body.payload_sha256).slice(0, 16)}…`,
  );
  // The queue is Temporal visibility: eventually consistent, so poll briefly.
  const pending = await until(async () =>
    ((await api('GET', `/v1/approvals?status=requested`, reviewerKey)).body.approvals as Json[]).find(
      (a) => a.request_id === id,
    ),
  );
  console.log(`  pending in the queue: ${pending.request_id}  ${pending.action}  ${pending.summary}`);
  const decided = await api('POST', `/v1/approvals/${id}/decision`, reviewerKey, {
    decision: 'approve',
    payload_sha256: created.body.payload_sha256,
    note: 'matches ticket #4081',
  });
  console.log(`  approve -> ${decided.status} ${decided.body.status}`);
  const consumed = await api('POST', `/v1/approvals/${id}/consume`, agentKey, {});
  console.log(`  consume -> ${consumed.status} args ${JSON.stringify(consumed.body.args)}`);
  const again = await api('POST', `/v1/approvals/${id}/consume`, agentKey, {});
  console.log(`  consume again -> ${again.status} ${again.body.error?.message ?? ''}`);
  const audit = await api('GET', `/v1/approvals/${id}/audit`, reviewerKey);
  console.log(`  audit trail (verified: ${audit.body.verified}):`);
  for (const e of audit.body.events as Json[])
    console.log(
      `    ${e.seq}  ${e.timestamp}  ${e.event_type.padEnd(22)} ${e.actor_type}:${e.actor_id}${e.note ? `  "${e.note}"` : ''}`,
    );
}

const BRANCHES: { scenario: string; title: string; decision?: Json }[] = [
  {
    scenario: 'trip-approve',
    title: 'approve at 800,000 KRW',
    decision: { decision: 'approve', note: 'within the quarterly budget' },
  },
  {
    scenario: 'trip-modify',
    title: 'modify the budget to 500,000 KRW',
    decision: { decision: 'modify', args: { budget: 500000 }, note: 'two days need at most 500,000' },
  },
  {
    scenario: 'trip-reject',
    title: 'reject with a reason',
    decision: { decision: 'reject', reason: 'the quarterly travel budget is already used up' },
  },
  { scenario: 'trip-policy-question', title: 'read-only question, no approval needed' },
];

async function tripDemo(api: Api, agentKey: string, reviewerKey: string): Promise<void> {
  for (const b of BRANCHES) {
    heading(`Part 2: trip agent, ${b.title}`);
    const body = JSON.parse(
      fs.readFileSync(path.join(__dirname, '..', 'examples', 'scenarios', `${b.scenario}.json`), 'utf8'),
    );
    const started = await api('POST', '/v1/runs', agentKey, body);
    const runId = started.body.run_id as string;
    console.log(`  POST /v1/runs -> ${started.status} ${runId}: "${body.goal}"`);
    if (b.decision) {
      const waiting = await until(async () => {
        const v = (await api('GET', `/v1/runs/${runId}`, agentKey)).body;
        return v.pending_approvals?.length ? v : undefined;
      });
      const reqId = waiting.pending_approvals[0].request_id;
      const gate = (await api('GET', `/v1/approvals/${reqId}`, reviewerKey)).body;
      console.log(`  run ${waiting.status}; gate ${reqId}: ${gate.payload.summary} (needs ${gate.approvals_required})`);
      const d = await api('POST', `/v1/approvals/${reqId}/decision`, reviewerKey, {
        ...b.decision,
        payload_sha256: gate.payload_sha256,
        args_sha256: gate.final_args_sha256,
      });
      console.log(`  reviewer: ${b.decision.decision} -> ${d.status} ${d.body.status ?? d.body.error?.message}`);
    }
    const done = await until(async () => {
      const v = (await api('GET', `/v1/runs/${runId}`, agentKey)).body;
      return ['completed', 'failed', 'cancelled'].includes(v.status) ? v : undefined;
    });
    for (const m of done.messages as Json[]) {
      if (m.role === 'assistant' && m.tool_calls?.length)
        for (const c of m.tool_calls) console.log(`    call ${c.id} ${c.name}(${JSON.stringify(c.args)})`);
      if (m.role === 'tool') console.log(`    result ${m.tool_call_id} [${m.outcome}] ${m.content}`);
    }
    console.log(
      `  run ${done.status}. Final answer:\n    ${String(done.final_answer ?? done.error).replace(/\n/g, '\n    ')}`,
    );
  }
}

type Api = (method: string, p: string, key: string, body?: unknown) => Promise<{ status: number; body: Json }>;
function makeApi(base: string): Api {
  return async (method, p, key, body) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
}

async function until<T>(f: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('demo: timed out waiting');
    await new Promise((r) => setTimeout(r, 250));
  }
}

function heading(t: string): void {
  console.log(`\n== ${t}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
