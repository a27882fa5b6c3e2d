import { randomBytes } from 'node:crypto';
import { ApiHarness, evidence } from './api-harness';

// Small limits so the test reaches them quickly; the production defaults are in src/api/http-limits.ts.
const LIMITS = { requestsPerMinute: 40, authFailures: 20, authFailureWindowMs: 60_000 };

let h: ApiHarness;
beforeAll(async () => {
  h = await ApiHarness.start({ limits: LIMITS });
});
afterAll(async () => {
  await h?.stop();
});

const badKey = (): string => `gk_reviewer_${randomBytes(32).toString('base64url')}`;

describe('security headers', () => {
  it('sends a strict CSP, frame-ancestors none and the helmet headers on API answers', async () => {
    const res = await h.http('GET', '/v1/approvals', { key: h.keys.reviewer });
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('sends the page its own CSP, naming the hashes of its script and style only', async () => {
    const res = await h.http('GET', '/');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]{43}='/);
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/]{43}='/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('keeps CORS closed: no Allow-Origin for another origin, and a preflight finds no route', async () => {
    const get = await h.http('GET', '/v1/approvals', {
      key: h.keys.reviewer,
      headers: { origin: 'https://evil.example' },
    });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await h.http('OPTIONS', '/v1/approvals', {
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(404);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    expect(preflight.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After once a key is over its limit, in the API error shape, and other keys go on', async () => {
    const key = await h.createKey('reviewer', 'rev-busy');
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<ApiHarness['http']>> | undefined;
    for (let i = 0; i < LIMITS.requestsPerMinute + 5; i++) {
      const res = await h.http('GET', '/v1/approvals?limit=1', { key });
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    expect(statuses.slice(0, LIMITS.requestsPerMinute).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(LIMITS.requestsPerMinute)).toEqual(Array(5).fill(429));
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited!.body).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/retry in/) } });
    expect((await h.http('GET', '/v1/approvals?limit=1', { key: h.keys.reviewer2 })).status).toBe(200);
  });

  it('answers 429 to an address that keeps presenting bad keys, whichever bad keys it tries', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) statuses.push((await h.http('GET', '/v1/approvals', { key: badKey() })).status);
    const first429 = statuses.indexOf(429);
    expect(statuses.slice(0, LIMITS.authFailures)).toEqual(Array(LIMITS.authFailures).fill(401));
    expect(first429).toBe(LIMITS.authFailures);
    expect(statuses.slice(first429).every((s) => s === 429)).toBe(true);
    const res = await h.http('GET', '/v1/approvals', {});
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.body.error.code).toBe('rate_limited');
  });

  it('never refuses a valid key for the failed attempts of others at its address', async () => {
    // Agents share egress addresses: one misconfigured agent must not lock out the good ones.
    for (let i = 0; i <= LIMITS.authFailures; i++) await h.http('GET', '/v1/approvals', { key: badKey() });
    expect((await h.http('GET', '/v1/approvals', { key: badKey() })).status).toBe(429);
    for (const key of [h.keys.reviewer, h.keys.agent]) {
      const res = await h.http('GET', '/v1/approvals', { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('retry-after')).toBeNull();
    }
    expect((await h.create(evidence())).status).toBe(201);
    // A further bad attempt from the address is still turned away.
    expect((await h.http('GET', '/v1/approvals', { key: badKey() })).status).toBe(429);
  });
});
