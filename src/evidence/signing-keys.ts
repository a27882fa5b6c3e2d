import fs from 'node:fs';
import path from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { base64Encode, keyIdOf } from '../common/dsse';
import type { EnvelopeSigner } from '../common/evidence-statement';

// Ed25519 keys for evidence bundles, with node:crypto (no extra dependency). The active
// key (GATE_SIGNING_KEY_FILE, PKCS#8 PEM) signs; retired keys (PEM files in
// GATE_SIGNING_KEYS_RETIRED_DIR) no longer sign but stay published, so bundles signed
// before a rotation keep verifying until an operator deletes their key's file.

/** A public key as `GET /v1/signing-keys` and `gate evidence key` publish it. */
export interface PublicSigningKey {
  /** Hex SHA-256 of the raw 32-byte public key: what a bundle's signature names. */
  keyid: string;
  algorithm: 'ed25519';
  status: 'active' | 'retired';
  /** The raw 32-byte public key, base64. */
  public_key: string;
  /** The same key as SPKI PEM (`-----BEGIN PUBLIC KEY-----`), for openssl and most libraries. */
  public_key_pem: string;
}

/** The raw 32 bytes of an Ed25519 public (or private) key. */
export function rawPublicKey(key: KeyObject): Uint8Array {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const x = pub.export({ format: 'jwk' }).x;
  if (pub.asymmetricKeyType !== 'ed25519' || typeof x !== 'string') throw new Error('not an Ed25519 key');
  return new Uint8Array(Buffer.from(x, 'base64url'));
}

/** The public key of a raw 32-byte Ed25519 key. */
export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') },
    format: 'jwk',
  });
}

const PEM_BLOCK = /-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g;

/**
 * Every Ed25519 public key in a PEM text: PUBLIC KEY blocks, and the public half of
 * PRIVATE KEY blocks. Text around the blocks (comments) is ignored. Throws naming `source`
 * for a block that is not an Ed25519 key, or for a text without any block.
 */
export function publicKeysInPem(text: string, source: string): Uint8Array[] {
  const blocks = [...text.matchAll(PEM_BLOCK)];
  if (blocks.length === 0) throw new Error(`${source} holds no PEM key`);
  return blocks.map((m) => {
    try {
      const key = m[1] === 'PUBLIC KEY' ? createPublicKey(m[0]) : createPrivateKey(m[0]);
      return rawPublicKey(key);
    } catch (err) {
      throw new Error(`${source}: a ${m[1]} block is not an Ed25519 key (${(err as Error).message})`);
    }
  });
}

function published(raw: Uint8Array, status: PublicSigningKey['status']): PublicSigningKey {
  return {
    keyid: keyIdOf(raw),
    algorithm: 'ed25519',
    status,
    public_key: base64Encode(raw),
    public_key_pem: publicKeyFromRaw(raw).export({ format: 'pem', type: 'spki' }).toString(),
  };
}

/** Where a process finds its signing keys. */
export interface SigningKeyFiles {
  /** The active key: PKCS#8 PEM. */
  keyFile?: string;
  /** A directory of PEM files (public or private) of retired keys. */
  retiredDir?: string;
}

/**
 * The keys of one process: the active one (if configured) signs; the retired directory is
 * read at every listing, so deleting a file there withdraws that key without a restart.
 */
export class SigningKeys {
  private constructor(
    private readonly files: SigningKeyFiles,
    private readonly active: { key: KeyObject; raw: Uint8Array; keyid: string } | undefined,
  ) {}

  /** Loads the active key and checks the retired directory. Throws naming the file that is wrong. */
  static load(files: SigningKeyFiles): SigningKeys {
    let active: { key: KeyObject; raw: Uint8Array; keyid: string } | undefined;
    if (files.keyFile) {
      let key: KeyObject;
      try {
        key = createPrivateKey(fs.readFileSync(files.keyFile, 'utf8'));
      } catch (err) {
        throw new Error(
          `GATE_SIGNING_KEY_FILE ${files.keyFile}: not a readable PKCS#8 PEM private key (${(err as Error).message})`,
        );
      }
      if (key.asymmetricKeyType !== 'ed25519')
        throw new Error(
          `GATE_SIGNING_KEY_FILE ${files.keyFile} is an ${key.asymmetricKeyType} key; evidence is signed with Ed25519`,
        );
      const raw = rawPublicKey(key);
      active = { key, raw, keyid: keyIdOf(raw) };
    }
    const keys = new SigningKeys(files, active);
    keys.retired(true); // a malformed file is reported at start, not at the first listing
    return keys;
  }

  /** The active key's id; undefined when none is configured. */
  get keyid(): string | undefined {
    return this.active?.keyid;
  }

  /** Signs DSSE envelopes with the active key. Throws when there is none. */
  signer(): EnvelopeSigner {
    const a = this.active;
    if (!a) throw new Error('no signing key: set GATE_SIGNING_KEY_FILE');
    return { keyid: a.keyid, sign: (message) => new Uint8Array(sign(null, message, a.key)) };
  }

  /** The published public keys: the active one first, then the retired ones (by file name). */
  publicKeys(): PublicSigningKey[] {
    const out = this.active ? [published(this.active.raw, 'active')] : [];
    for (const raw of this.retired(false))
      if (!out.some((k) => k.keyid === keyIdOf(raw))) out.push(published(raw, 'retired'));
    return out;
  }

  /** Keys in the retired directory; `strict` throws on a bad file, otherwise it is skipped. */
  private retired(strict: boolean): Uint8Array[] {
    const dir = this.files.retiredDir;
    if (!dir || !fs.existsSync(dir)) return [];
    const out: Uint8Array[] = [];
    for (const name of fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.pem'))
      .sort()) {
      try {
        out.push(...publicKeysInPem(fs.readFileSync(path.join(dir, name), 'utf8'), path.join(dir, name)));
      } catch (err) {
        if (strict) throw err;
      }
    }
    return out;
  }
}

/** Writes a new Ed25519 private key as PKCS#8 PEM, readable by its owner only. Refuses to overwrite. */
export function generateSigningKey(file: string): { keyid: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
  return { keyid: keyIdOf(rawPublicKey(privateKey)) };
}

/** Where `gate dev` keeps its key and retired keys when GATE_SIGNING_KEY_FILE is unset. */
export function devSigningKeyFiles(dataDir: string): Required<SigningKeyFiles> {
  const dir = path.join(dataDir, 'signing');
  return { keyFile: path.join(dir, 'signing-key.pem'), retiredDir: path.join(dir, 'retired') };
}

/**
 * The key files a process uses: the configured ones, else those `gate dev` keeps under the
 * data dir (when it made them). Nothing is created here.
 */
export function signingKeyFilesOf(cfg: {
  dataDir: string;
  signingKeyFile?: string;
  signingKeysRetiredDir?: string;
}): SigningKeyFiles {
  const dev = devSigningKeyFiles(cfg.dataDir);
  const useDev = !cfg.signingKeyFile && fs.existsSync(dev.keyFile);
  return {
    keyFile: cfg.signingKeyFile ?? (useDev ? dev.keyFile : undefined),
    retiredDir: cfg.signingKeysRetiredDir ?? (useDev ? dev.retiredDir : undefined),
  };
}
