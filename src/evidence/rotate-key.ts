import fs from 'node:fs';
import path from 'node:path';
import { generateSigningKey, signingKeyFilesOf, SigningKeys } from './signing-keys';

/** What `rotateSigningKey` did. */
export interface KeyRotation {
  retired_keyid: string;
  /** The retired key's public PEM; only the public half is kept. */
  retired_file: string;
  keyid: string;
  key_file: string;
}

/**
 * Retires the active signing key and puts a new one in its file: the old key's public PEM
 * goes to the retired directory first (so bundles it signed keep verifying), then the new
 * key replaces the old file in one rename. A running API signs with the old key until it
 * restarts. Throws when no key or no retired directory is configured.
 */
export function rotateSigningKey(cfg: {
  dataDir: string;
  signingKeyFile?: string;
  signingKeysRetiredDir?: string;
}): KeyRotation {
  const files = signingKeyFilesOf(cfg);
  if (!files.keyFile) throw new Error('no signing key to rotate: set GATE_SIGNING_KEY_FILE (or run gate dev once)');
  if (!files.retiredDir) throw new Error('set GATE_SIGNING_KEYS_RETIRED_DIR: the retired key is published from there');
  const old = SigningKeys.load({ keyFile: files.keyFile }).publicKeys()[0]!;
  fs.mkdirSync(files.retiredDir, { recursive: true });
  const retiredFile = path.join(files.retiredDir, `${old.keyid}.pem`);
  fs.writeFileSync(retiredFile, old.public_key_pem);
  const fresh = `${files.keyFile}.new`;
  fs.rmSync(fresh, { force: true }); // left by a rotation that stopped halfway
  const { keyid } = generateSigningKey(fresh);
  fs.renameSync(fresh, files.keyFile);
  return { retired_keyid: old.keyid, retired_file: retiredFile, keyid, key_file: files.keyFile };
}
