import { evaluatePolicy } from '../../src/worker/activities/policy';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client, Connection } from '@temporalio/client';
import type { GateActivities } from '../../src/worker/activities/contracts';
import { createWebhookActivities } from '../../src/worker/activities/webhooks';
import { createNotifyActivities } from '../../src/worker/activities/notify';
import { EvidencePayload, payloadSha256 } from '../../src/common/evidence';
import type { GateInput, GateState } from '../../src/common/gate-state';
import { consumeUpdate, decideUpdate, GATE_TENANT } from '../../src/workflow/gate/messages';
import { generateWebhookSecret, verifyWebhook, type WebhookEvent } from '../../src/webhooks';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';
import { waitFor } from '../support/wait';
import { gateInputFor } from '../support/gate-fixtures';

// An external-executor gate on the real dev server, delivering to real local receivers.

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A local receiver; `answer(n)` gives the status for its n-th delivery (0-based). */
async function startReceiver(answer: (n: number) => number) {
  const received: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = answer(received.length);
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const secret = generateWebhookSecret();
let flaky: Receiver; // answers 500 to its first delivery
let steady: Receiver; // always 200: shows a retry skips URLs already done
let worker: RunningWorker;
let client: Client;
let connection: Connection;

beforeAll(async () => {
  flaky = await startReceiver((n) => (n === 0 ? 500 : 200));
  steady = await startReceiver(() => 200);
  const activities: GateActivities = {
    recheckAndExecuteTool: async () => ({ unsupported: true as const }),
    ...createWebhookActivities({
      urls: [flaky.url, steady.url],
      secret,
      logger: { info: () => undefined, warn: () => undefined },
    }),
    recordAuditEvents: async () => ({ webhook_receivers: 2 }),
    recheckSnapshot: async () => ({ ok: true }),
    executeTool: async () => ({ content: 'not used by the external executor' }),
    reviseToolCall: async () => ({ ok: false, issues: [{ path: '', message: 'not used by this test' }] }),
    resolveReviewers: async ({ approvals_required }) => ({ approvals_required }), // no rule file
    evaluatePolicy: (input) => evaluatePolicy({}, input), // no rule file
    issueGrant: async () => ({ stored: false }), // no grant store
    ...createNotifyActivities({ settings: {} }), // no notification channels
  };
  worker = await startTestWorker(activities);
  ({ client, connection } = await testClient());
});

afterAll(async () => {
  await worker?.stop();
  await connection?.close();
  await Promise.all([flaky?.close(), steady?.close()]);
});

function gateInput(): GateInput {
  const requestId = `appr_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const payload = EvidencePayload.parse({
    request_id: requestId,
    idempotency_key: `idem-${requestId}`,
    expires_at: new Date(Date.now() + 10 * 60_000).toISOString(),
    correlation_id: `corr-${requestId}`,
    agent_id: 'agent-1',
    trigger_event_id: `evt-${requestId}`,
    action: 'trip.submit',
    target: 'trip-draft-7',
    summary: 'Submit a 3-day trip to Busan, 900,000 KRW',
    blast_radius: { budget: 900000, currency: 'KRW' },
    args: { destination: 'Busan', days: 3, budget: 900000 },
  });
  return gateInputFor(payload);
}

it('delivers requested, approved and consumed, signed, retrying a 500 under one webhook-id', async () => {
  const input = gateInput();
  const handle = await client.workflow.start('approvalGateWorkflow', {
    taskQueue: worker.taskQueue,
    workflowId: input.payload.request_id,
    args: [input],
    typedSearchAttributes: [{ key: GATE_TENANT, value: 'acme' }], // bodies name the gate's tenant
  });

  await waitFor('the first delivery to the failing receiver', () => flaky.received.length > 0); // the 500 goes to approval.requested
  const decided = await handle.executeUpdate(decideUpdate, {
    args: [
      {
        decision_id: `dec-${randomUUID()}`,
        reviewer_id: 'rev-1',
        decision: 'approve',
        payload_sha256: input.payload_sha256,
      },
    ],
  });
  expect(decided.status).toBe('approved');
  const consumed = await handle.executeUpdate(consumeUpdate, { args: [{ consumer_id: input.payload.agent_id }] });
  expect(consumed.args).toEqual(input.payload.args);
  const final = (await handle.result()) as GateState; // the gate flushes its deliveries before it returns
  expect(final.status).toBe('consumed');

  const byType = (rx: Receiver): Map<string, { id: string; status: number; event: WebhookEvent }[]> => {
    const out = new Map<string, { id: string; status: number; event: WebhookEvent }[]>();
    for (const d of rx.received) {
      const event = verifyWebhook(secret, d.body, d.headers); // throws if any delivery is not authentic
      const list = out.get(event.type) ?? [];
      list.push({ id: String(d.headers['webhook-id']), status: d.status, event });
      out.set(event.type, list);
    }
    return out;
  };
  const types = ['approval.approved', 'approval.consumed', 'approval.requested']; // sorted
  const fromFlaky = byType(flaky);
  const fromSteady = byType(steady);
  expect([...fromFlaky.keys()].sort()).toEqual(types);
  expect([...fromSteady.keys()].sort()).toEqual(types);

  expect(fromFlaky.get('approval.requested')!.map((d) => d.status)).toEqual([500, 200]);
  for (const type of types) {
    const ids = new Set([...fromFlaky.get(type)!, ...fromSteady.get(type)!].map((d) => d.id));
    expect(ids.size).toBe(1); // one delivery id per event, across the retry and both receivers
    expect(fromSteady.get(type)).toHaveLength(1); // the retry skipped the URL that had taken it
    expect(fromFlaky.get(type)!.at(-1)!.event.data.request_id).toBe(input.payload.request_id);
  }
  expect(new Set(types.map((t) => fromFlaky.get(t)![0]!.id)).size).toBe(3);
  expect(fromFlaky.get('approval.consumed')!.at(-1)!.event.data).toMatchObject({
    status: 'consumed',
    actor_id: 'agent-1',
    tenant: 'acme',
  });
});

it('delivers each level of an escalation chain with its level, loop, targets and roles', async () => {
  const base = gateInput();
  const payload = EvidencePayload.parse({
    ...base.payload,
    escalation: { name: 'inline', levels: [{ after_seconds: 1, roles: ['cfo'] }], repeat: 0 },
  });
  const input: GateInput = { ...base, payload, payload_sha256: payloadSha256(payload) };
  const handle = await client.workflow.start('approvalGateWorkflow', {
    taskQueue: worker.taskQueue,
    workflowId: payload.request_id,
    args: [input],
  });
  await waitFor('the escalated webhook', () =>
    steady.received.some(
      (d) => JSON.parse(d.body).type === 'approval.escalated' && d.body.includes(payload.request_id),
    ),
  );
  const delivery = steady.received.find(
    (d) => JSON.parse(d.body).type === 'approval.escalated' && d.body.includes(payload.request_id),
  )!;
  expect(verifyWebhook(secret, delivery.body, delivery.headers).data).toMatchObject({
    request_id: payload.request_id,
    level: 1,
    loop: 0,
    targets: [],
    roles_added: ['cfo'],
  });
  await handle.terminate('test done');
});
