import fs from 'node:fs';
import { verifyWebhook, type WebhookEvent } from '../../src/webhooks';
import { evidence } from '../e2e/api-harness';
import { stackTarget, targetKey, type StackTarget } from '../support/stack-target';

// Webhooks from the stack's worker processes to a real receiver (the suite's global setup
// runs it and logs every delivery), signed with the stack's GATE_WEBHOOK_SECRET.

let t: StackTarget;
beforeAll(() => {
  t = stackTarget()!;
});

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

function deliveries(): Delivery[] {
  return fs
    .readFileSync(t.webhookLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Delivery);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read field by field
async function post(path: string, key: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.info.api_url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function eventsFor(id: string, types: string[], ms = 60_000): Promise<{ d: Delivery; e: WebhookEvent }[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const mine = deliveries()
      .map((d) => ({ d, e: verifyWebhook(t.webhookSecret, d.body, d.headers) }))
      .filter(({ e }) => e.data.request_id === id);
    if (types.every((ty) => mine.some(({ e }) => e.type === ty))) return mine;
    if (Date.now() > deadline)
      throw new Error(`webhooks for ${id}: got ${mine.map(({ e }) => e.type).join(', ')}; want ${types.join(', ')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('webhooks from the stack', () => {
  it('delivers requested, approved and consumed, each signed and verifiable, with one webhook-id per event', async () => {
    const agent = targetKey(t, 'agent', 'agent-1');
    const created = await post('/v1/approvals', agent, evidence());
    expect(created.status).toBe(201);
    const id = created.body.request_id as string;
    const decided = await post(`/v1/approvals/${id}/decision`, targetKey(t, 'reviewer', 'rev-1'), {
      decision: 'approve',
      payload_sha256: created.body.payload_sha256,
    });
    expect(decided.status).toBe(200);
    expect((await post(`/v1/approvals/${id}/consume`, agent, {})).status).toBe(200);

    const types = ['approval.requested', 'approval.approved', 'approval.consumed'];
    const got = await eventsFor(id, types);
    const byType = new Map(got.map(({ d, e }) => [e.type, { id: d.headers['webhook-id'], e }]));
    expect([...byType.keys()].sort()).toEqual([...types].sort());
    expect(new Set([...byType.values()].map((v) => v.id)).size).toBe(3);
    expect(byType.get('approval.approved')!.e.data).toMatchObject({ request_id: id, status: 'approved' });
    // A tampered body fails verification.
    const { d } = got[0]!;
    expect(() => verifyWebhook(t.webhookSecret, d.body.replace(id, `${id}x`), d.headers)).toThrow();
  });
});
