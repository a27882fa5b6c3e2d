import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { keyIdOf } from '../../src/common/dsse';
import { signedEnvelope } from '../../src/common/evidence-statement';
import { verifyEvidenceBundle } from '../../src/common/evidence-verify';
import { rotateSigningKey } from '../../src/evidence/rotate-key';
import {
  devSigningKeyFiles,
  generateSigningKey,
  publicKeysInPem,
  signingKeyFilesOf,
  SigningKeys,
} from '../../src/evidence/signing-keys';
import { nodeEd25519Verify, trustedKeysOfConfig } from '../../src/evidence/verify-file';
import { SimulatedGate } from '../support/evidence-fixtures';

const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'evidence-keys-'));

describe('signing keys', () => {
  it('writes a PKCS#8 key readable by its owner only, and never overwrites one', () => {
    const file = path.join(tmp(), 'k', 'signing.pem');
    const { keyid } = generateSigningKey(file);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(SigningKeys.load({ keyFile: file }).keyid).toBe(keyid);
    expect(() => generateSigningKey(file)).toThrow(/EEXIST/);
  });

  it('names the keyid after the SHA-256 of the raw 32-byte public key', () => {
    const file = path.join(tmp(), 'signing.pem');
    generateSigningKey(file);
    const [pub] = SigningKeys.load({ keyFile: file }).publicKeys();
    const raw = Buffer.from(pub!.public_key, 'base64');
    expect(raw).toHaveLength(32);
    expect(pub!.keyid).toBe(keyIdOf(raw));
    expect(pub).toMatchObject({ algorithm: 'ed25519', status: 'active' });
    expect(publicKeysInPem(pub!.public_key_pem, 'pem').map((k) => keyIdOf(k))).toEqual([pub!.keyid]);
  });

  it('refuses a key file that is not an Ed25519 private key, naming the variable and the file', () => {
    const file = path.join(tmp(), 'rsa.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    fs.writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }));
    expect(() => SigningKeys.load({ keyFile: file })).toThrow(/GATE_SIGNING_KEY_FILE .*rsa\.pem is an rsa key/);
    expect(() => SigningKeys.load({ keyFile: path.join(tmp(), 'missing.pem') })).toThrow(/GATE_SIGNING_KEY_FILE/);
  });

  it('reads the PEM blocks of a key listing and skips the comments around them', () => {
    const dir = tmp();
    generateSigningKey(path.join(dir, 'a.pem'));
    generateSigningKey(path.join(dir, 'b.pem'));
    const listing = ['a.pem', 'b.pem']
      .flatMap((f) => SigningKeys.load({ keyFile: path.join(dir, f) }).publicKeys())
      .map((k) => `# keyid ${k.keyid} (${k.status})\n${k.public_key_pem}`)
      .join('\n');
    expect(publicKeysInPem(listing, 'listing')).toHaveLength(2);
    expect(() => publicKeysInPem('# nothing here', 'empty.pem')).toThrow(/empty\.pem holds no PEM key/);
  });
});

describe('rotation', () => {
  it('retires the active key into the retired directory (public half only), publishes both, and keeps old bundles verifiable', async () => {
    const dataDir = tmp();
    const dev = devSigningKeyFiles(dataDir);
    const first = generateSigningKey(dev.keyFile).keyid;
    const cfg = { dataDir };
    expect(signingKeyFilesOf(cfg)).toEqual(dev);
    const before = SigningKeys.load(signingKeyFilesOf(cfg));
    const bundle = new SimulatedGate().decide('ann', 'approve').consume().statement();
    const signed = signedEnvelope(bundle, before.signer());

    const r = rotateSigningKey(cfg);
    expect(r).toMatchObject({ retired_keyid: first, key_file: dev.keyFile });
    expect(r.keyid).not.toBe(first);
    expect(fs.readFileSync(r.retired_file, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);

    const after = SigningKeys.load(signingKeyFilesOf(cfg));
    expect(after.keyid).toBe(r.keyid);
    expect(after.publicKeys().map((k) => [k.keyid, k.status])).toEqual([
      [r.keyid, 'active'],
      [first, 'retired'],
    ]);
    const keys = trustedKeysOfConfig(signingKeyFilesOf(cfg));
    expect(await verifyEvidenceBundle(signed, { keys, verifyEd25519: nodeEd25519Verify })).toMatchObject({
      ok: true,
      key_status: 'retired',
    });

    // The operator withdraws the old key: its file goes, and so does its place among the published keys.
    fs.rmSync(r.retired_file);
    expect(after.publicKeys().map((k) => k.keyid)).toEqual([r.keyid]);
    const v = await verifyEvidenceBundle(signed, {
      keys: trustedKeysOfConfig(signingKeyFilesOf(cfg)),
      verifyEd25519: nodeEd25519Verify,
    });
    expect(v).toMatchObject({ ok: false, failed: { check: 'key' } });
  });

  it('refuses to rotate without a key, or without a retired directory to publish the old one from', () => {
    expect(() => rotateSigningKey({ dataDir: tmp() })).toThrow(/no signing key to rotate/);
    const file = path.join(tmp(), 'k.pem');
    generateSigningKey(file);
    expect(() => rotateSigningKey({ dataDir: tmp(), signingKeyFile: file })).toThrow(/GATE_SIGNING_KEYS_RETIRED_DIR/);
  });
});
