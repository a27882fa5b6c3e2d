import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { statementOf } from '../../src/common/evidence-statement';
import { verifyEvidenceBundle, type TrustedKey } from '../../src/common/evidence-verify';
import { generateSigningKey, SigningKeys } from '../../src/evidence/signing-keys';
import { nodeEd25519Verify } from '../../src/evidence/verify-file';
import { ApiHarness, evidence } from './api-harness';

// The evidence routes of the real API (worker, Temporal, store): bundles read in the
// caller's scope, decisions by API key and by OpenID Connect ID token (from a minimal
// issuer on loopback that serves discovery and its key set), and the published keys.

let h: ApiHarness;
let issuerServer: Server;
let issuer = '';
let idpKey: KeyLike;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evidence-api-'));
const keyFile = path.join(dir, 'signing.pem');
const retiredDir = path.join(dir, 'retired');
let activeKeyid = '';
let retiredKeyid = '';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function idToken(sub: string): Promise<string> {
  return new SignJWT({ roles: ['finance'] })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience('gate')
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(idpKey);
}

/** The published keys, as a verifier that trusts this server would take them. */
async function publishedKeys(): Promise<TrustedKey[]> {
  const r = await h.http('GET', '/v1/signing-keys');
  return (r.body.keys as { public_key: string; status: 'active' | 'retired' }[]).map((k) => ({
    public_key: new Uint8Array(Buffer.from(k.public_key, 'base64')),
    status: k.status,
  }));
}

async function bundleOf(id: string, key = h.keys.reviewer): Promise<Json> {
  const r = await h.http('GET', `/v1/approvals/${id}/evidence`, { key });
  expect(r.status).toBe(200);
  return r.body;
}

beforeAll(async () => {
  activeKeyid = generateSigningKey(keyFile).keyid;
  retiredKeyid = generateSigningKey(path.join(retiredDir, 'old.pem')).keyid;
  const pair = await generateKeyPair('RS256');
  idpKey = pair.privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  issuerServer = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration')
      return res.end(
        JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}/auth`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
        }),
      );
    if (req.url === '/jwks') return res.end(JSON.stringify({ keys: [jwk] }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => issuerServer.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  h = await ApiHarness.start({
    signing: SigningKeys.load({ keyFile, retiredDir }),
    oidc: { issuer, audience: 'gate', rolesClaim: 'roles', scopes: 'openid', tenant: 'default' },
  });
});

afterAll(async () => {
  await h?.stop();
  await new Promise<void>((r) => issuerServer.close(() => r()));
});

describe('GET /v1/signing-keys', () => {
  it('publishes the active and the retired keys without authentication, until the retired file is deleted', async () => {
    const r = await h.http('GET', '/v1/signing-keys');
    expect(r.status).toBe(200);
    expect(r.body.keys.map((k: Json) => [k.keyid, k.status, k.algorithm])).toEqual([
      [activeKeyid, 'active', 'ed25519'],
      [retiredKeyid, 'retired', 'ed25519'],
    ]);
    expect(r.body.keys[0].public_key_pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const moved = path.join(dir, 'withdrawn.pem');
    fs.renameSync(path.join(retiredDir, 'old.pem'), moved);
    try {
      const after = await h.http('GET', '/v1/signing-keys');
      expect(after.body.keys.map((k: Json) => k.keyid)).toEqual([activeKeyid]);
    } finally {
      fs.renameSync(moved, path.join(retiredDir, 'old.pem'));
    }
  });
});

describe('GET /v1/approvals/{id}/evidence', () => {
  it('signs a quorum decided by an API key and an ID token, naming how each reviewer authenticated', async () => {
    const c = await h.create(evidence({ approvals_required: 2 }));
    expect(c.status).toBe(201);
    const { request_id: id, payload_sha256: sha } = c.body;
    expect((await h.decide(id, { decision: 'approve', payload_sha256: sha, note: 'checked' })).status).toBe(200);
    const person = await h.decide(id, { decision: 'approve', payload_sha256: sha }, await idToken('carol@example.com'));
    expect(person.body).toMatchObject({ status: 'approved' });
    expect((await h.consume(id)).status).toBe(200);
    await h.waitFor(id, (b) => b.status === 'consumed');

    const bundle = await bundleOf(id);
    expect(bundle.payloadType).toBe('application/vnd.in-toto+json');
    expect(bundle.signatures).toEqual([{ keyid: activeKeyid, sig: expect.any(String) }]);
    const v = await verifyEvidenceBundle(bundle, { keys: await publishedKeys(), verifyEd25519: nodeEd25519Verify });
    expect(v).toMatchObject({ ok: true, status: 'consumed', pending: false, key_status: 'active' });
    const p = (statementOf(bundle) as Json).predicate;
    expect(p.decisions.map((d: Json) => [d.reviewer_id, d.auth])).toEqual([
      ['rev-1', { method: 'api_key', key_id: 'rev-1' }],
      ['carol@example.com', { method: 'oidc', issuer, subject: 'carol@example.com' }],
    ]);
    expect(p.decisions[1].roles).toEqual(['finance']);
    expect(p.quorum).toMatchObject({ approvals_required: 2, reviewers: ['rev-1', 'carol@example.com'], met: true });
  });

  it('gives a pending request a bundle marked pending, and a denial one that says so', async () => {
    const pending = await h.create(evidence());
    const b = await bundleOf(pending.body.request_id);
    const keys = await publishedKeys();
    expect(await verifyEvidenceBundle(b, { keys, verifyEd25519: nodeEd25519Verify })).toMatchObject({
      ok: true,
      status: 'requested',
      pending: true,
    });
    expect((statementOf(b) as Json).predicate.pending).toBe(true);

    const denied = await h.create(evidence());
    const sha = denied.body.payload_sha256;
    await h.decide(denied.body.request_id, { decision: 'reject', payload_sha256: sha, reason: 'duplicate refund' });
    const d = await bundleOf(denied.body.request_id);
    expect(await verifyEvidenceBundle(d, { keys, verifyEd25519: nodeEd25519Verify })).toMatchObject({
      ok: true,
      status: 'denied',
    });
  });

  it('is read in the caller’s scope: the requester and reviewers of its tenant, 404 for anyone else', async () => {
    const c = await h.create(evidence());
    const id = c.body.request_id;
    expect((await h.http('GET', `/v1/approvals/${id}/evidence`, { key: h.keys.agent })).status).toBe(200);
    expect((await h.http('GET', `/v1/approvals/${id}/evidence`, { key: h.keys.otherAgent })).status).toBe(404);
    const stranger = await h.createKey('reviewer', `globex-rev-${Date.now()}`, 'globex');
    const other = await h.http('GET', `/v1/approvals/${id}/evidence`, { key: stranger });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('not_found');
    expect((await h.http('GET', `/v1/approvals/${id}/evidence`)).status).toBe(401);
    expect((await h.http('GET', `/v1/approvals/appr_nope/evidence`, { key: h.keys.reviewer })).status).toBe(404);
  });

  it('signs nothing when the append-only store was edited behind its back', async () => {
    const c = await h.create(evidence());
    const id = c.body.request_id;
    await h.decide(id, { decision: 'approve', payload_sha256: c.body.payload_sha256 });
    const stored = async (): Promise<number> => (await h.audit.list(id)).length;
    for (let i = 0; i < 100 && (await stored()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await h.http('GET', `/v1/approvals/${id}/evidence`, { key: h.keys.reviewer })).status).toBe(200);
    await h.db.run('DROP TRIGGER audit_events_no_update');
    try {
      await h.db.run(`UPDATE audit_events SET note = 'forged' WHERE request_id = ? AND seq = 1`, [id]);
      const r = await h.http('GET', `/v1/approvals/${id}/evidence`, { key: h.keys.reviewer });
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('audit_store_mismatch');
    } finally {
      await h.audit.migrate(); // the trigger again, for whatever runs next
    }
  });
});

describe('GET /v1/approvals?since=&before=', () => {
  it('lists the gates started in a period, and refuses a time it cannot read', async () => {
    const start = new Date(Date.now() - 1000).toISOString();
    const c = await h.create(evidence());
    const id = c.body.request_id;
    const listed = async (q: string): Promise<string[]> => {
      const r = await h.http('GET', `/v1/approvals?${q}`, { key: h.keys.reviewer });
      expect(r.status).toBe(200);
      return r.body.approvals.map((a: Json) => a.request_id);
    };
    let found: string[] = [];
    for (let i = 0; i < 50 && !found.includes(id); i++) {
      found = await listed(`since=${encodeURIComponent(start)}`);
      if (!found.includes(id)) await new Promise((r) => setTimeout(r, 200)); // visibility is eventually consistent
    }
    expect(found).toContain(id);
    expect(await listed(`since=${encodeURIComponent(start)}&before=${encodeURIComponent(start)}`)).toEqual([]);
    expect(await listed(`since=2999-01-01`)).toEqual([]);
    const bad = await h.http('GET', '/v1/approvals?since=yesterday', { key: h.keys.reviewer });
    expect(bad.status).toBe(422);
  });
});
