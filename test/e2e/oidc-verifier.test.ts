import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { OidcVerifier, rolesAt, type OidcSettings } from '../../src/api/oidc';

// The verifier against a minimal issuer on loopback (discovery and JWKS only), with
// tokens signed here, so each way a token can be wrong is tried on its own.

let server: Server;
let issuer = '';
let signingKey: KeyLike;
let otherKey: KeyLike;
let discoveryIssuer = '';

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey;
  otherKey = (await generateKeyPair('RS256')).privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration')
      return res.end(
        JSON.stringify({
          issuer: discoveryIssuer,
          authorization_endpoint: `${issuer}/auth`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
        }),
      );
    if (req.url === '/jwks') return res.end(JSON.stringify({ keys: [jwk] }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  discoveryIssuer = issuer;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const settings = (): OidcSettings => ({
  issuer,
  audience: 'gate',
  rolesClaim: 'roles',
  scopes: 'openid',
  tenant: 'default',
});

function token(claims: Record<string, unknown> = {}, opts: { key?: KeyLike; exp?: string | number } = {}) {
  return new SignJWT({ roles: ['finance'], ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(typeof claims.iss === 'string' ? claims.iss : issuer)
    .setAudience(typeof claims.aud === 'string' ? claims.aud : 'gate')
    .setSubject(typeof claims.sub === 'string' ? claims.sub : 'alice@example.com')
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? '5m')
    .sign(opts.key ?? signingKey);
}

describe('OidcVerifier', () => {
  it('accepts a good token and names the person by subject, with the roles claim', async () => {
    await expect(new OidcVerifier(settings()).verify(await token({ name: 'Alice' }))).resolves.toEqual({
      sub: 'alice@example.com',
      tenant: 'default',
      roles: ['finance'],
      name: 'Alice',
    });
  });

  it('takes the tenant from a claim when GATE_OIDC_TENANT_CLAIM names one, and refuses a token without it', async () => {
    const v = new OidcVerifier({ ...settings(), tenantClaim: 'org' });
    await expect(v.verify(await token({ org: 'acme' }))).resolves.toMatchObject({ tenant: 'acme' });
    await expect(v.verify(await token())).rejects.toMatchObject({
      status: 401,
      message: expect.stringMatching(/claim org/),
    });
    await expect(v.verify(await token({ org: 'Not A Tenant' }))).rejects.toMatchObject({ status: 401 });
  });

  it.each([
    ['an expired token', () => token({}, { exp: Math.floor(Date.now() / 1000) - 120 }), /expired/],
    ['another audience', () => token({ aud: 'billing-app' }), /claim aud/],
    ['another issuer', () => token({ iss: 'https://evil.example' }), /claim iss/],
    ['a key not in the issuer’s set', () => token({}, { key: otherKey }), /signature does not verify/],
  ])('refuses %s with 401', async (_what, make, reason) => {
    await expect(new OidcVerifier(settings()).verify(await make())).rejects.toMatchObject({
      status: 401,
      code: 'unauthenticated',
      message: expect.stringMatching(reason),
    });
  });

  it('refuses a token signed with a shared secret (HS256) or with no signature', async () => {
    const v = new OidcVerifier(settings());
    const hs = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(issuer)
      .setAudience('gate')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a shared secret that is long enough'));
    await expect(v.verify(hs)).rejects.toMatchObject({ status: 401 });
    const [, body] = (await token()).split('.');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${body}.`;
    await expect(v.verify(none)).rejects.toMatchObject({ status: 401 });
  });

  it('checks the sign-in nonce when one is given', async () => {
    const v = new OidcVerifier(settings());
    await expect(v.verify(await token({ nonce: 'n1' }), { nonce: 'n1' })).resolves.toMatchObject({
      sub: 'alice@example.com',
    });
    await expect(v.verify(await token({ nonce: 'n1' }), { nonce: 'n2' })).rejects.toMatchObject({
      status: 401,
      message: expect.stringMatching(/nonce/),
    });
  });

  it('refuses to trust a discovery document that names another issuer', async () => {
    discoveryIssuer = 'https://someone-else.example';
    try {
      await expect(new OidcVerifier(settings()).verify(await token())).rejects.toMatchObject({
        status: 503,
        code: 'oidc_misconfigured',
      });
    } finally {
      discoveryIssuer = issuer;
    }
  });

  it('answers 503 while the issuer is unreachable', async () => {
    const v = new OidcVerifier({ ...settings(), issuer: 'http://127.0.0.1:9' });
    await expect(v.verify(await token())).rejects.toMatchObject({ status: 503, code: 'oidc_unavailable' });
  });
});

describe('rolesAt', () => {
  it('reads an array, a space-separated string, or a nested claim', () => {
    expect(rolesAt({ roles: ['a', 'b', 'a'] }, 'roles')).toEqual(['a', 'b']);
    expect(rolesAt({ scope: 'finance audit' }, 'scope')).toEqual(['finance', 'audit']);
    expect(rolesAt({ realm_access: { roles: ['finance'] } }, 'realm_access.roles')).toEqual(['finance']);
  });

  it('gives no roles for a missing or odd claim', () => {
    expect(rolesAt({}, 'roles')).toEqual([]);
    expect(rolesAt({ roles: 7 }, 'roles')).toEqual([]);
    expect(rolesAt({ roles: [1, { a: 1 }, 'ok'] }, 'roles')).toEqual(['ok']);
    expect(rolesAt({ roles: ['x'] }, '__proto__.roles')).toEqual([]);
  });
});
