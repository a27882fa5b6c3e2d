import { randomUUID } from 'node:crypto';
import type { SearchAttributePair } from '@temporalio/common';
import { prepareCreate } from '../../src/client/create-request';
import { startOptions } from '../../src/client/start-options';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/common/search-attributes';
import { ApiHarness, evidence, type Res } from './api-harness';

/**
 * Tenancy beyond the route matrix: the state-leak probe (consume and cancel by a
 * stranger), gates without a tenant, listing filters that try to cross tenants, and the
 * answer of the workflow itself when a caller goes around the API.
 */
let h: ApiHarness;
const K = { aAgent: '', aReviewer: '', bAgent: '', bReviewer: '' };

beforeAll(async () => {
  h = await ApiHarness.start();
  K.aAgent = await h.createKey('agent', 'acme-bot', 'acme');
  K.aReviewer = await h.createKey('reviewer', 'acme-rev', 'acme');
  K.bAgent = await h.createKey('agent', 'globex-bot', 'globex');
  K.bReviewer = await h.createKey('reviewer', 'globex-rev', 'globex');
});
afterAll(async () => h?.stop());

async function open(key = K.aAgent, over: Record<string, unknown> = {}): Promise<{ id: string; sha: string }> {
  const r = await h.create(evidence(over), { key });
  expect(r.status).toBe(201);
  return { id: r.body.request_id, sha: r.body.payload_sha256 };
}

const missing = (method: string, suffix: string, key: string) =>
  h.http(method, `/v1/approvals/appr_000000000000000000000000${suffix}`, {
    key,
    ...(method === 'GET' ? {} : { body: {} }),
  });

function sameAsMissing(r: Res, m: Res, id: string): void {
  expect(r.status).toBe(404);
  expect(JSON.stringify(r.body).split(id).join('<id>')).toBe(
    JSON.stringify(m.body).split('appr_000000000000000000000000').join('<id>'),
  );
}

async function listed(key: string, query: string): Promise<{ request_id: string; tenant: string }[]> {
  const r = await h.http('GET', `/v1/approvals?${query}`, { key });
  expect(r.status).toBe(200);
  return r.body.approvals;
}

describe('tenancy', () => {
  it('answers B consuming A pending request and cancelling A approved one with the 404 of a missing id, never A state', async () => {
    const pending = await open();
    const approved = await open();
    expect(
      (await h.decide(approved.id, { decision: 'approve', payload_sha256: approved.sha }, K.aReviewer)).status,
    ).toBe(200);
    const consume = await h.http('POST', `/v1/approvals/${pending.id}/consume`, { key: K.bAgent });
    sameAsMissing(consume, await missing('POST', '/consume', K.bAgent), pending.id);
    const cancel = await h.http('POST', `/v1/approvals/${approved.id}/cancel`, { key: K.bAgent, body: {} });
    sameAsMissing(cancel, await missing('POST', '/cancel', K.bAgent), approved.id);
    for (const r of [consume, cancel]) expect(JSON.stringify(r.body)).not.toMatch(/requested|approved|acme/);
    // Nothing changed for A.
    expect((await h.get(pending.id, K.aReviewer)).body.status).toBe('requested');
    expect((await h.get(approved.id, K.aReviewer)).body.status).toBe('approved');
  });

  it('has the gate itself refuse a stranger before its state, for callers that go around the API', async () => {
    const pending = await open();
    const approved = await open();
    await h.decide(approved.id, { decision: 'approve', payload_sha256: approved.sha }, K.aReviewer);
    // The unscoped client reaches the workflow: its answer is 403 NotRequester, naming no state.
    await expect(h.gate.consume(pending.id, 'globex-bot')).rejects.toMatchObject({
      status: 403,
      code: 'not_requester',
      message: 'only the requesting agent may consume this request',
    });
    await expect(h.gate.cancel(approved.id, 'globex-bot')).rejects.toMatchObject({
      status: 403,
      code: 'not_requester',
      message: 'only the requesting agent may cancel this request',
    });
  });

  it('gives a gate started without a tenant (older code, another service) to the default tenant only', async () => {
    const { requestId, input } = prepareCreate(evidence(), { agentId: 'agent-1' });
    const opts = startOptions(requestId, input, h.taskQueue, randomUUID());
    const pairs = opts.typedSearchAttributes as SearchAttributePair[];
    await h.client.workflow.start('approvalGateWorkflow', {
      ...opts,
      typedSearchAttributes: pairs.filter((p) => p.key.name !== SEARCH_ATTRIBUTE_NAMES.tenant),
    });
    expect((await h.get(requestId, h.keys.reviewer)).status).toBe(200);
    sameAsMissing(await h.get(requestId, K.aReviewer), await missing('GET', '', K.aReviewer), requestId);
    // Listed for the default tenant (the attribute is missing, not 'default'), never for acme.
    const mine = await (async () => {
      for (let i = 0; i < 100; i++) {
        const rows = await listed(h.keys.reviewer, 'limit=500');
        const row = rows.find((r) => r.request_id === requestId);
        if (row) return row;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error('never listed for the default tenant');
    })();
    expect(mine.tenant).toBe('default');
    expect((await listed(K.aReviewer, 'limit=500')).some((r) => r.request_id === requestId)).toBe(false);
  });

  it('keeps listing filters inside the tenant, whatever they hold', async () => {
    const a = await open(K.aAgent, { target: `ch_${randomUUID().slice(0, 8)}` });
    const target = (await h.get(a.id, K.aReviewer)).body.payload.target as string;
    // A sees it (wait out visibility lag), B never does, by target, by agent, or by an injection attempt.
    for (let i = 0; ; i++) {
      if ((await listed(K.aReviewer, `target=${target}`)).some((r) => r.request_id === a.id)) break;
      if (i > 100) throw new Error('never listed for acme');
      await new Promise((r) => setTimeout(r, 200));
    }
    const hostile = [
      `target=${encodeURIComponent(target)}`,
      'agent_id=acme-bot',
      `target=${encodeURIComponent(`x' OR GateTenant = 'acme`)}`,
      `target=${encodeURIComponent(`x' OR WorkflowType = 'approvalGateWorkflow`)}`,
      `target=${encodeURIComponent(`${target}\\' OR 'a' = 'a`)}`,
      'limit=500',
    ];
    for (const q of hostile)
      for (const key of [K.bReviewer, K.bAgent]) {
        const rows = await listed(key, q);
        expect(rows.some((r) => r.request_id === a.id)).toBe(false);
        expect(rows.every((r) => r.tenant === 'globex')).toBe(true);
      }
  });

  it('gives two tenants different requests for the same body and idempotency key', async () => {
    const body = evidence();
    const a = await h.create(body, { key: K.aAgent, idempotencyKey: 'same-key' });
    const b = await h.create(body, { key: K.bAgent, idempotencyKey: 'same-key' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.request_id).not.toBe(a.body.request_id);
  });
});
