import { defaultIdempotencyKey, requestIdFor } from '../../src/common/evidence';
import { ApiHarness, evidence, type Res } from './api-harness';

let h: ApiHarness;
beforeAll(async () => {
  h = await ApiHarness.start();
});
afterAll(async () => {
  await h?.stop();
});

/** The request id a body would have had: it must not exist after a refused create. */
async function expectNothingStored(body: Record<string, unknown>): Promise<void> {
  const id = requestIdFor(
    'agent-1',
    defaultIdempotencyKey(body as { trigger_event_id: string; action: string; target: string }),
  );
  expect((await h.get(id)).status).toBe(404);
  expect(await h.audit.list(id)).toEqual([]);
}

function paths(res: Res): string[] {
  return (res.body.error.details ?? []).map((d: { path: string }) => d.path);
}

describe('a create the gate refuses', () => {
  it('answers 400 for malformed JSON and stores nothing', async () => {
    const body = evidence();
    const res = await h.http('POST', '/v1/approvals', { key: h.keys.agent, raw: JSON.stringify(body).slice(0, -7) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'malformed_json', message: expect.stringMatching(/not valid JSON/) });
    await expectNothingStored(body);
  });

  it('answers 422 naming each field of the wrong type, and stores nothing', async () => {
    const body = evidence({
      summary: 123,
      approvals_required: '2',
      blast_radius: { amount_cents: 1.5 },
      surprise: true,
    });
    const res = await h.create(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('invalid_request');
    expect(paths(res)).toEqual(
      expect.arrayContaining(['$.summary', '$.approvals_required', '$.blast_radius.amount_cents', '$']),
    );
    await expectNothingStored(body);
  });

  it('answers 413 for a payload over 64 KB, whether fastify or the canonical size check catches it', async () => {
    const justOver = evidence({ args: { blob: 'x'.repeat(65 * 1024) } });
    const overLimit = evidence({ args: { blob: 'x'.repeat(200 * 1024) } });
    for (const body of [justOver, overLimit]) {
      const res = await h.create(body);
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
      await expectNothingStored(body);
    }
  });

  it.each([
    ['a password key', { user: 'ann', password: 'hunter2' }, '$.args.password'],
    ['a Bearer token', { header: 'Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig' }, '$.args.header'],
    ['a Luhn-valid card number', { card: '4111 1111 1111 1111' }, '$.args.card'],
  ])('answers 422 naming the path for args carrying %s, and stores nothing', async (_what, args, path) => {
    const body = evidence({ args });
    const res = await h.create(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('secret_in_payload');
    expect(paths(res)).toContain(path);
    expect(res.body.error.message).toContain(path);
    await expectNothingStored(body);
  });

  it('accepts a long number that is not Luhn-valid (an order number, not a card)', async () => {
    expect((await h.create(evidence({ args: { order: '4111 1111 1111 1112' } }))).status).toBe(201);
  });

  it.each(['tool', 'workflow'])(
    'refuses executor "%s" over HTTP (422): only runs and workflows open those',
    async (executor) => {
      const body = evidence({ executor });
      const res = await h.create(body);
      expect(res.status).toBe(422);
      expect(paths(res)).toEqual(['$.executor']);
      await expectNothingStored(body);
    },
  );

  it('refuses an expires_at in the past (422), another agent_id (403) and a non-JSON body (415), storing nothing', async () => {
    const past = evidence({ expires_at: '2020-01-01T00:00:00Z' });
    expect(paths(await h.create(past))).toEqual(['$.expires_at']);
    await expectNothingStored(past);
    const impostor = evidence({ agent_id: 'agent-2' });
    expect((await h.create(impostor)).status).toBe(403);
    await expectNothingStored(impostor);
    const text = await h.http('POST', '/v1/approvals', {
      key: h.keys.agent,
      raw: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
  });
});

describe('a decision the gate refuses', () => {
  async function pending(): Promise<{ id: string; sha: string; events: number }> {
    const res = await h.create(evidence());
    expect(res.status).toBe(201);
    const id = res.body.request_id;
    return { id, sha: res.body.payload_sha256, events: (await h.audit_(id)).body.count };
  }

  /** Still requested, no votes, no new audit event. */
  /** Nothing decided: still requested, no votes, and the only new audit events are visible refusals. */
  async function unchanged(p: { id: string; events: number }): Promise<void> {
    expect((await h.get(p.id)).body).toMatchObject({ status: 'requested', votes: [] });
    const events = (await h.audit_(p.id)).body.events as { event_type: string }[];
    expect(events.slice(p.events).every((e) => e.event_type === 'decision.refused')).toBe(true);
  }

  it('answers 400 for malformed JSON and changes nothing', async () => {
    const p = await pending();
    const res = await h.http('POST', `/v1/approvals/${p.id}/decision`, {
      key: h.keys.reviewer,
      raw: '{"decision": "approve",',
    });
    expect(res.status).toBe(400);
    await unchanged(p);
  });

  it('answers 422 for "Approve" (decision words are never guessed) and changes nothing', async () => {
    const p = await pending();
    const res = await h.decide(p.id, { decision: 'Approve', payload_sha256: p.sha });
    expect(res.status).toBe(422);
    expect(paths(res)).toContain('$.decision');
    await unchanged(p);
  });

  it("answers 409 for a payload_sha256 other than the request's and changes nothing", async () => {
    const p = await pending();
    const res = await h.decide(p.id, { decision: 'approve', payload_sha256: 'b'.repeat(64) });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('hash_mismatch');
    await unchanged(p);
    // The refusal is visible in the trail, not silently dropped.
    const deadline = Date.now() + 10_000;
    let refused: { event_type: string; data: { refusal?: string } }[] = [];
    while (refused.length === 0 && Date.now() < deadline) {
      refused = ((await h.audit_(p.id)).body.events as typeof refused).filter(
        (e) => e.event_type === 'decision.refused',
      );
      if (refused.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused.map((e) => e.data.refusal)).toEqual(['HashMismatch']);
  });

  it('answers 422 for wrong types and for modified args that carry a secret, changing nothing', async () => {
    const p = await pending();
    const wrong = await h.decide(p.id, { decision: 'approve', payload_sha256: p.sha, note: 42 });
    expect(wrong.status).toBe(422);
    expect(paths(wrong)).toContain('$.note');
    const secret = await h.decide(p.id, { decision: 'modify', payload_sha256: p.sha, args: { api_key: 'abc' } });
    expect(secret.status).toBe(422);
    expect(secret.body.error.code).toBe('invalid_args');
    await unchanged(p);
  });

  it('answers 422 for a malformed list query', async () => {
    const res = await h.http('GET', '/v1/approvals?limit=abc', { key: h.keys.reviewer });
    expect(res.status).toBe(422);
    expect(paths(res)).toContain('$.limit');
  });
});
