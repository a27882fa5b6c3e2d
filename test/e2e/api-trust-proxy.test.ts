import { randomBytes } from 'node:crypto';
import { parseTrustProxy } from '../../src/api/trust-proxy';
import { ApiHarness } from './api-harness';

// Behind a proxy every client arrives from the proxy's address. With GATE_TRUST_PROXY naming the
// proxy, the per-address limits count each client by X-Forwarded-For; without it the header is ignored,
// so a client cannot pick its own bucket by sending one.

const LIMITS = { requestsPerMinute: 1000, authFailures: 10, authFailureWindowMs: 60_000 };
const badKey = (): string => `gk_reviewer_${randomBytes(32).toString('base64url')}`;

let behindProxy: ApiHarness;
let direct: ApiHarness;
beforeAll(async () => {
  // The test's own requests come from 127.0.0.1: that is the proxy here.
  behindProxy = await ApiHarness.start({ limits: LIMITS, trustProxy: ['127.0.0.1'] });
  direct = await ApiHarness.start({ limits: LIMITS });
});
afterAll(async () => {
  await behindProxy?.stop();
  await direct?.stop();
});

const failAs = (h: ApiHarness, client: string, key = badKey()) =>
  h.http('GET', '/v1/approvals', { key, headers: { 'x-forwarded-for': client } });

describe('GATE_TRUST_PROXY', () => {
  it('parses false, true and address lists, refuses hop counts, and names a bad entry', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('127.0.0.1, 10.0.0.0/8,::1,fd00::/8')).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
    ]);
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/"10.0.0.0\/33" is not an IP address or CIDR range/);
    expect(() => parseTrustProxy('proxy.internal')).toThrow(/GATE_TRUST_PROXY=proxy.internal/);
    expect(() => parseTrustProxy('2')).toThrow(/a hop count cannot tell the proxy from a client/);
  });

  it('behind a trusted proxy, locks out the client that tries bad keys and no other client of the proxy', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMITS.authFailures + 3; i++) statuses.push((await failAs(behindProxy, '203.0.113.7')).status);
    expect(statuses).toEqual([...Array(LIMITS.authFailures).fill(401), 429, 429, 429]);
    // Another client behind the same proxy is counted on its own.
    expect((await failAs(behindProxy, '203.0.113.8')).status).toBe(401);
    expect((await failAs(behindProxy, '198.51.100.20', behindProxy.keys.reviewer)).status).toBe(200);
    // The proxy appends the address it saw; the client's own claim further left is not what counts.
    expect((await failAs(behindProxy, '203.0.113.7, 198.51.100.99')).status).toBe(401);
    expect((await failAs(behindProxy, '198.51.100.99, 203.0.113.7')).status).toBe(429);
  });

  it('without the setting, ignores X-Forwarded-For: changing it does not escape the lockout', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMITS.authFailures + 3; i++) statuses.push((await failAs(direct, `203.0.113.${i}`)).status);
    expect(statuses).toEqual([...Array(LIMITS.authFailures).fill(401), 429, 429, 429]);
    expect((await failAs(direct, '198.51.100.20')).status).toBe(429);
    // A valid key is never refused for failed attempts, locked-out address or not.
    expect((await failAs(direct, '198.51.100.21', direct.keys.reviewer)).status).toBe(200);
  });
});
