import { z } from 'zod';
import { sha256 } from '@noble/hashes/sha256';
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils';
import { sharedSchema } from './shared-schema';

// DSSE v1 (github.com/secure-systems-lab/dsse): the envelope evidence bundles travel in.
// Pure, so any verifier (our CLI, a browser, another service) shares these bytes exactly.

/** The payload type of an in-toto Statement inside a DSSE envelope. */
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

/** One signature: `keyid` names the key (hex SHA-256 of its raw public key), `sig` is base64. */
export const DsseSignature = sharedSchema('dsse.DsseSignature', () =>
  z.object({
    /** Hex SHA-256 of the signer's raw 32-byte Ed25519 public key. */
    keyid: z.string(),
    /** Base64 Ed25519 signature over the pre-authentication encoding of the payload. */
    sig: z.string(),
  }),
);
export type DsseSignature = z.infer<typeof DsseSignature>;

/** A DSSE envelope: the signed bytes are `PAE(payloadType, base64decode(payload))`. */
export const DsseEnvelope = sharedSchema('dsse.DsseEnvelope', () =>
  z.object({
    payloadType: z.string(),
    /** Base64 (standard alphabet, padded) of the payload bytes. */
    payload: z.string(),
    signatures: z.array(DsseSignature).min(1).max(16),
  }),
);
export type DsseEnvelope = z.infer<typeof DsseEnvelope>;

/**
 * The DSSE pre-authentication encoding: `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`,
 * where LEN is the byte length in ASCII decimal. What is signed, so the type cannot be swapped.
 */
export function pae(payloadType: string, body: Uint8Array): Uint8Array {
  const type = utf8ToBytes(payloadType);
  const head = utf8ToBytes(`DSSEv1 ${type.length} ${payloadType} ${body.length} `);
  return concatBytes(head, body);
}

/** `keyid` of an Ed25519 public key: lower-case hex SHA-256 of its raw 32 bytes. */
export function keyIdOf(rawPublicKey: Uint8Array): string {
  return bytesToHex(sha256(rawPublicKey));
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const INDEX = new Map([...ALPHABET].map((c, i) => [c, i]));

/** Standard base64 with padding. */
export function base64Encode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? ALPHABET[n & 63]! : '=';
  }
  return out;
}

/**
 * Strict standard base64 (padded, no whitespace, zero pad bits): one text for one byte
 * string, so a changed character can never decode to the same bytes. Throws otherwise.
 */
export function base64Decode(text: string): Uint8Array {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error('not padded standard base64');
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const at = (k: number): number => INDEX.get(text[i + k]!) ?? 0; // '=' counts as zero bits
    const n = (at(0) << 18) | (at(1) << 12) | (at(2) << 6) | at(3);
    for (const b of [(n >> 16) & 255, (n >> 8) & 255, n & 255]) if (o < out.length) out[o++] = b;
  }
  if (base64Encode(out) !== text) throw new Error('base64 with non-zero padding bits');
  return out;
}
