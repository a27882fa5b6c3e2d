import canonicalize from 'canonicalize';
import { sha256 } from '@noble/hashes/sha256';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

/**
 * RFC 8785 (JCS) canonical JSON. Pure, so workflows, API and tests hash the same
 * bytes. Throws on values JSON cannot carry (undefined at top level, functions).
 */
export function canonicalJson(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new TypeError('value has no canonical JSON form');
  return out;
}

/** Lower-case hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/** SHA-256 of the canonical JSON of a value: the one digest used for payloads, args and results. */
export function digest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** Byte length of a string as UTF-8. */
export function utf8Length(text: string): number {
  return utf8ToBytes(text).length;
}
