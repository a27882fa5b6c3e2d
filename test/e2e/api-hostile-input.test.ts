import { ApiHarness, evidence } from './api-harness';

let h: ApiHarness;
beforeAll(async () => {
  h = await ApiHarness.start();
});
afterAll(async () => {
  await h?.stop();
});

/** The API's own error shape, and nothing else. */
function expectApiError(body: unknown, code?: string): void {
  expect(body).toEqual({
    error: expect.objectContaining({ code: code ?? expect.any(String), message: expect.any(String) }),
  });
}

async function listUntil(query: string, id: string, ms = 15_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  let ids: string[] = [];
  while (Date.now() < deadline) {
    const res = await h.http('GET', `/v1/approvals?${query}`, { key: h.keys.reviewer });
    expect(res.status).toBe(200);
    ids = (res.body.approvals as { request_id: string }[]).map((a) => a.request_id);
    if (ids.includes(id)) return ids;
    await new Promise((r) => setTimeout(r, 250));
  }
  return ids;
}

describe('numbers that cannot be represented', () => {
  it('refuses 1e400 on create with 422 naming the path, and stores nothing', async () => {
    const body = JSON.stringify(evidence()).replace('"amount":14500', '"amount":1e400');
    expect(body).toContain('1e400');
    const res = await h.http('POST', '/v1/approvals', { key: h.keys.agent, raw: body });
    expect(res.status).toBe(422);
    expectApiError(res.body, 'unrepresentable_number');
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: '$.args.amount' })]);
  });

  it('refuses an integer past 2^53 (it would run rounded)', async () => {
    const body = JSON.stringify(evidence()).replace('"amount":14500', '"amount":12345678901234567890');
    const res = await h.http('POST', '/v1/approvals', { key: h.keys.agent, raw: body });
    expect(res.status).toBe(422);
    expectApiError(res.body, 'unrepresentable_number');
  });

  it('refuses 1e400 in a modify, and what is consumed is what was approved', async () => {
    const created = await h.create(evidence());
    expect(created.status).toBe(201);
    const { request_id: id, payload_sha256: sha } = created.body;
    const raw = JSON.stringify({ decision: 'modify', payload_sha256: sha, args: { amount: 1 } }).replace(
      '"amount":1',
      '"amount":-1e400',
    );
    const res = await h.http('POST', `/v1/approvals/${id}/decision`, { key: h.keys.reviewer, raw });
    expect(res.status).toBe(422);
    expectApiError(res.body, 'unrepresentable_number');
    expect((await h.get(id)).body).toMatchObject({ status: 'requested', votes: [] });
    expect((await h.decide(id, { decision: 'approve', payload_sha256: sha })).status).toBe(200);
    const consumed = await h.consume(id);
    expect(consumed.status).toBe(200);
    expect(consumed.body.args.amount).toBe(14500);
  });
});

describe('bodies built to hurt', () => {
  it('refuses nesting deeper than the limit with 422, never a 5xx', async () => {
    for (const depth of [65, 1000, 30_000]) {
      const raw = JSON.stringify(evidence()).replace(
        '"preconditions":{',
        `"preconditions":{"x":${'['.repeat(depth)}${']'.repeat(depth)},`,
      );
      const res = await h.http('POST', '/v1/approvals', { key: h.keys.agent, raw });
      expect(res.status).toBe(422);
      expectApiError(res.body, 'too_deep');
    }
  });
});

describe('wrong answers for bad input', () => {
  it.each(['%00', 'a%00b', '%01', '%0A', '%1B%5B31m'])('answers 422 for ?target=%s, not 503', async (t) => {
    const res = await h.http('GET', `/v1/approvals?target=${t}`, { key: h.keys.reviewer });
    expect(res.status).toBe(422);
    expectApiError(res.body, 'invalid_request');
  });

  it('answers 422 for a control character in ?agent_id=', async () => {
    const res = await h.http('GET', `/v1/approvals?agent_id=%00`, { key: h.keys.reviewer });
    expect(res.status).toBe(422);
    expectApiError(res.body);
  });

  it.each([101, 200, 201, 1000, 5000])('answers an id of %i characters in the API error shape', async (n) => {
    const id = 'a'.repeat(n);
    for (const path of [`/v1/approvals/${id}`, `/v1/approvals/${id}/audit`]) {
      const res = await h.http('GET', path, { key: h.keys.reviewer });
      expect([404, 414]).toContain(res.status);
      expectApiError(res.body);
    }
    const res = await h.http('POST', `/v1/approvals/${id}/consume`, { key: h.keys.agent });
    expect([404, 414]).toContain(res.status);
    expectApiError(res.body);
  });

  it('answers 400 in the API error shape for a malformed URL component', async () => {
    const res = await h.http('GET', '/v1/approvals/%E0%A4%A', { key: h.keys.reviewer });
    expect(res.status).toBe(400);
    expectApiError(res.body);
  });

  it.each([`o"brien`, `it's`, `back\\slash`, `both"'\\`, `%_*`, `a AND b`])(
    'finds a target holding %s with ?target=',
    async (target) => {
      const created = await h.create(evidence({ target }));
      expect(created.status).toBe(201);
      const ids = await listUntil(`target=${encodeURIComponent(target)}&status=`, created.body.request_id);
      expect(ids).toEqual([created.body.request_id]);
    },
  );
});
