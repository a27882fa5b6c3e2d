import fs from 'node:fs';
import { verify } from 'node:crypto';
import type { Ed25519Verify, TrustedKey } from '../common/evidence-verify';
import { publicKeyFromRaw, publicKeysInPem, SigningKeys, type SigningKeyFiles } from './signing-keys';

/** Ed25519 verification with node:crypto, for the pure verifier. A malformed key or signature is a `false`. */
export const nodeEd25519Verify: Ed25519Verify = (publicKey, message, signature) => {
  try {
    return verify(null, message, publicKeyFromRaw(publicKey), signature);
  } catch {
    return false;
  }
};

/** Every Ed25519 key in these PEM files (public or private; a file may hold several). Throws naming a bad file. */
export function trustedKeysFromFiles(files: readonly string[]): TrustedKey[] {
  return files.flatMap((file) =>
    publicKeysInPem(fs.readFileSync(file, 'utf8'), file).map((public_key) => ({ public_key })),
  );
}

/** The keys this machine's configuration publishes (active and retired), with their status. */
export function trustedKeysOfConfig(files: SigningKeyFiles): TrustedKey[] {
  return SigningKeys.load(files)
    .publicKeys()
    .map((k) => ({ public_key: new Uint8Array(Buffer.from(k.public_key, 'base64')), status: k.status }));
}
