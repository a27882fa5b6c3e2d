import type { EvidenceVerification } from '../common/evidence-verify';
import type { PublicSigningKey } from '../evidence/signing-keys';

/** `gate evidence verify`'s text: one line per check passed, the failed one marked, and a verdict line. */
export function formatVerification(file: string, v: EvidenceVerification): string {
  const width = Math.max(...[...v.passed.map((p) => p.check), ...(v.ok ? [] : [v.failed.check])].map((c) => c.length));
  const lines = v.passed.map((p) => `  ok    ${p.check.padEnd(width)}  ${p.detail}`);
  if (!v.ok) {
    lines.push(`  FAIL  ${v.failed.check.padEnd(width)}  ${v.failed.message}`);
    return `${file}: NOT VERIFIED\n${lines.join('\n')}`;
  }
  const key = v.key_status === 'unknown' ? 'a key given with --key' : `a ${v.key_status} key`;
  const head = `${file}: VERIFIED: ${v.request_id} is ${v.status}${v.pending ? ' (PENDING: not a final outcome)' : ''}, signed by ${key}`;
  return `${head}\n${lines.join('\n')}`;
}

/** Public keys as PEM blocks, each after a comment line naming its keyid and status (PEM readers skip the comments). */
export function formatPublicKeys(keys: readonly PublicSigningKey[]): string {
  if (keys.length === 0) return 'no signing keys configured (set GATE_SIGNING_KEY_FILE, or run gate dev)';
  return keys.map((k) => `# keyid ${k.keyid} (${k.status})\n${k.public_key_pem.trim()}`).join('\n');
}

/** A file name for a request's bundle: its id with anything but letters, digits, `.`, `_` and `-` replaced. */
export function bundleFileName(requestId: string): string {
  return `${requestId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
}
