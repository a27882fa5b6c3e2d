import { digest } from '../../src/common/hashing';
import { base64Decode, base64Encode, pae } from '../../src/common/dsse';
import {
  EVIDENCE_CHECKS,
  verifyEvidenceBundle,
  type EvidenceVerification,
  type TrustedKey,
} from '../../src/common/evidence-verify';
import { nodeEd25519Verify } from '../../src/evidence/verify-file';
import {
  AGENT,
  decoded,
  flipChar,
  signStatement,
  SimulatedGate,
  testKey,
  type TestKey,
} from '../support/evidence-fixtures';

const key = testKey();
const verify = (bundle: unknown, keys: TrustedKey[] = [key.trusted('active')]): Promise<EvidenceVerification> =>
  verifyEvidenceBundle(bundle, { keys, verifyEd25519: nodeEd25519Verify });

/** The check that failed, or 'ok'. */
async function outcome(bundle: unknown, keys?: TrustedKey[]): Promise<string> {
  const v = await verify(bundle, keys);
  return v.ok ? 'ok' : v.failed.check;
}

const consumed = (): SimulatedGate =>
  new SimulatedGate().decide('ann', 'approve', { note: 'ticket checked' }).consume();
/** Two of two, the first reviewer modified the amount: the quorum restarts on the modified args. */
const quorumWithModification = (): SimulatedGate => {
  const g = new SimulatedGate({ approvals_required: 2 });
  g.decide('ann', 'modify', { args: { amount: 9000 }, note: 'partial refund' });
  return g.decide('bob', 'approve', { args_sha256: g.state.final_args_sha256 }).consume();
};

describe('DSSE encoding', () => {
  it('builds the pre-authentication encoding of the DSSE specification', () => {
    const out = pae('http://example.com/HelloWorld', new TextEncoder().encode('hello world'));
    expect(new TextDecoder().decode(out)).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
  });

  it('round-trips base64 and refuses unpadded, non-canonical or foreign text', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 255);
      expect(base64Encode(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      expect(Buffer.from(base64Decode(base64Encode(bytes)))).toEqual(Buffer.from(bytes));
    }
    for (const bad of ['QQ', 'QR==', 'QQ==\n', 'QQ-_', 'Q===']) expect(() => base64Decode(bad)).toThrow();
  });
});

describe('verifyEvidenceBundle on bundles of real gate paths', () => {
  it('verifies an approved-then-consumed request, every check in order, with the reviewer key that decided', async () => {
    const g = consumed();
    const v = await verify(g.bundle(key));
    expect(v).toMatchObject({ ok: true, status: 'consumed', pending: false, keyid: key.keyid, key_status: 'active' });
    expect(v.passed.map((p) => p.check)).toEqual(EVIDENCE_CHECKS);
    const p = decoded(g.bundle(key)).predicate;
    expect(p.decisions).toEqual([
      expect.objectContaining({
        reviewer_id: 'ann',
        auth: { method: 'api_key', key_id: 'ann' },
        roles: [],
        decision: 'approve',
        note: 'ticket checked',
      }),
    ]);
    expect(p.quorum).toEqual({ approvals_required: 1, roles: [], reviewers: ['ann'], met: true });
    expect(p.outcome).toMatchObject({ status: 'consumed', by: AGENT, pending: false });
  });

  it('binds the second subject to the modified args that ran, after a quorum of two', async () => {
    const g = quorumWithModification();
    const bundle = g.bundle(key);
    expect(await verify(bundle)).toMatchObject({ ok: true, status: 'consumed' });
    const st = decoded(bundle);
    const args = { charge: 'ch_3MvICBLkdIwHu7ix', amount: 9000 };
    expect(st.subject).toEqual([
      { name: g.state.request_id, digest: { sha256: g.state.payload_sha256 } },
      { name: `${g.state.request_id}/args`, digest: { sha256: digest(args) } },
    ]);
    expect(
      st.predicate.decisions.map((d: { reviewer_id: string; decision: string }) => [d.reviewer_id, d.decision]),
    ).toEqual([
      ['ann', 'modify'],
      ['bob', 'approve'],
    ]);
    expect(st.predicate.quorum).toMatchObject({ approvals_required: 2, reviewers: ['ann', 'bob'], met: true });
  });

  it('verifies a denial with the reviewer reason, and a pending request marked as pending', async () => {
    const denied = new SimulatedGate().decide('ann', 'reject', { reason: 'duplicate refund' });
    expect(await verify(denied.bundle(key))).toMatchObject({ ok: true, status: 'denied', pending: false });
    expect(decoded(denied.bundle(key)).predicate.outcome).toMatchObject({
      status: 'denied',
      reason: 'duplicate refund',
    });
    const pending = new SimulatedGate({ approvals_required: 2 }).decide('ann', 'approve');
    expect(await verify(pending.bundle(key))).toMatchObject({ ok: true, status: 'requested', pending: true });
    expect(decoded(pending.bundle(key)).predicate.pending).toBe(true);
  });

  it('records an OIDC reviewer by issuer and subject', async () => {
    const g = new SimulatedGate()
      .decide('carol@example.com', 'approve', {
        auth: { method: 'oidc', issuer: 'https://idp.example.com', subject: 'carol@example.com' },
        reviewer_roles: ['finance'],
      })
      .consume();
    expect(await outcome(g.bundle(key))).toBe('ok');
    expect(decoded(g.bundle(key)).predicate.decisions[0]).toMatchObject({
      auth: { method: 'oidc', issuer: 'https://idp.example.com', subject: 'carol@example.com' },
      roles: ['finance'],
    });
  });
});

describe('tampering: one byte flipped in each part', () => {
  const bundle = quorumWithModification().bundle(key);
  const mid = (s: string): number => Math.floor(s.length / 2);

  it('refuses a flipped byte of the envelope payload at the signature', async () => {
    expect(await outcome({ ...bundle, payload: flipChar(bundle.payload, mid(bundle.payload)) })).toBe('signature');
  });

  it('refuses a flipped byte of the signature at the signature', async () => {
    const sig = bundle.signatures[0]!;
    expect(await outcome({ ...bundle, signatures: [{ ...sig, sig: flipChar(sig.sig, 10) }] })).toBe('signature');
  });

  it('refuses a flipped byte of the keyid at the key, since no trusted key has that id', async () => {
    const sig = bundle.signatures[0]!;
    expect(await outcome({ ...bundle, signatures: [{ ...sig, keyid: flipChar(sig.keyid, 0) }] })).toBe('key');
  });

  it('refuses flipped bytes inside the statement at the signature, unsigned or signed by a stranger', async () => {
    const st = decoded(bundle);
    st.predicate.decisions[0].reviewer_id = flipChar(st.predicate.decisions[0].reviewer_id, 0);
    const stranger = testKey();
    expect(await outcome({ ...bundle, payload: signStatement(st, stranger).payload })).toBe('signature');
    expect(await outcome(signStatement(st, stranger))).toBe('key');
  });

  // Re-signed with the trusted key itself: the checks behind the signature still name what changed.
  const resigned = (edit: (st: ReturnType<typeof decoded>) => void, k: TestKey = key) => {
    const st = decoded(bundle);
    edit(st);
    return signStatement(st, k);
  };

  it('names the subjects when one byte of the evidence payload changed, even re-signed', async () => {
    const b = resigned((st) => (st.predicate.payload.summary = flipChar(st.predicate.payload.summary, 0)));
    const v = await verify(b);
    expect(v).toMatchObject({ ok: false, failed: { check: 'subjects' } });
  });

  it("names the decisions when one byte of a decision's reviewer changed, even re-signed", async () => {
    const b = resigned((st) => (st.predicate.decisions[1].reviewer_id = flipChar('bob', 0)));
    expect(await verify(b)).toMatchObject({
      ok: false,
      failed: { check: 'decisions', message: expect.stringContaining('events: bob') },
    });
  });

  it('names the audit chain when one byte of an audit event changed, even re-signed', async () => {
    const b = resigned((st) => (st.predicate.audit.events[2].actor_id = flipChar('bob', 0)));
    expect(await verify(b)).toMatchObject({ ok: false, failed: { check: 'audit_chain' } });
  });

  it('names the outcome when the stated outcome is not where the events lead, even re-signed', async () => {
    const b = resigned((st) => (st.predicate.outcome.status = 'approved'));
    expect(await outcome(b)).toBe('outcome');
  });

  it('refuses what is not an in-toto DSSE envelope at the envelope', async () => {
    expect(await outcome({ hello: 'world' })).toBe('envelope');
    expect(await outcome({ ...bundle, payloadType: 'application/json' })).toBe('envelope');
    expect(await outcome({ ...bundle, payload: bundle.payload.slice(1) })).toBe('envelope');
  });
});

describe('keys and rotation', () => {
  it('verifies a bundle signed by a retired key while its key is published, and refuses it once withdrawn', async () => {
    const old = testKey();
    const current = testKey();
    const bundle = consumed().bundle(old);
    expect(await verify(bundle, [current.trusted('active'), old.trusted('retired')])).toMatchObject({
      ok: true,
      keyid: old.keyid,
      key_status: 'retired',
    });
    const withdrawn = await verify(bundle, [current.trusted('active')]);
    expect(withdrawn).toMatchObject({
      ok: false,
      failed: { check: 'key', message: expect.stringContaining(old.keyid) },
    });
  });

  it('takes no keyid on trust: a key is known by the digest of its own bytes', async () => {
    const bundle = consumed().bundle(key);
    const other = testKey();
    const forged = { ...bundle, signatures: [{ keyid: other.keyid, sig: bundle.signatures[0]!.sig }] };
    expect(await outcome(forged, [other.trusted()])).toBe('signature');
  });
});

describe('the rules behind the outcome, on chains a correct gate would refuse to write', () => {
  it('refuses a quorum of two met by the same reviewer twice', async () => {
    const g = new SimulatedGate({ approvals_required: 2 }).decide('ann', 'approve').decide('ann', 'approve');
    expect(g.state.status).toBe('approved'); // the bare state machine counts votes; the gate's refuseDecision would not
    const v = await verify(g.bundle(key));
    expect(v).toMatchObject({
      ok: false,
      failed: { check: 'quorum', message: expect.stringContaining('ann is counted twice') },
    });
  });

  it('refuses an approval by a reviewer without one of the rule’s roles, or whose roles were not recorded', async () => {
    const wrongRole = new SimulatedGate({ roles: ['finance'] }).decide('ann', 'approve', { reviewer_roles: ['ops'] });
    expect(await verify(wrongRole.bundle(key))).toMatchObject({
      ok: false,
      failed: { check: 'quorum', message: expect.stringContaining('without one of the roles finance') },
    });
    const unrecorded = new SimulatedGate({ roles: ['finance'] }).decide('ann', 'approve', { auth: null });
    expect(await verify(unrecorded.bundle(key))).toMatchObject({
      ok: false,
      failed: { check: 'quorum', message: expect.stringContaining('roles of ann were not recorded') },
    });
    const eligible = new SimulatedGate({ roles: ['finance'] }).decide('ann', 'approve', {
      reviewer_roles: ['finance'],
    });
    expect(await outcome(eligible.bundle(key))).toBe('ok');
  });

  it('refuses an approval by the requesting agent', async () => {
    const g = new SimulatedGate().decide(AGENT, 'approve');
    expect(await verify(g.bundle(key))).toMatchObject({ ok: false, failed: { check: 'self_approval' } });
  });

  it('refuses a consume after a denial: the outcome does not follow from the events', async () => {
    const g = new SimulatedGate().decide('ann', 'reject', { reason: 'no' });
    g.append({ event_type: 'approval.consumed', actor_type: 'agent', actor_id: AGENT, data: {} });
    expect(await verify(g.bundle(key))).toMatchObject({
      ok: false,
      failed: { check: 'outcome', message: expect.stringContaining('cannot follow status denied') },
    });
  });

  it('refuses a modification whose recorded args do not match its digest', async () => {
    const g = new SimulatedGate();
    g.append({
      event_type: 'approval.modified',
      actor_type: 'human',
      actor_id: 'ann',
      data: { decision_id: 'd1', args: { amount: 1 }, args_sha256: digest({ amount: 2 }), approvals_required: 1 },
    });
    expect(await outcome(g.bundle(key))).toBe('args');
  });
});
