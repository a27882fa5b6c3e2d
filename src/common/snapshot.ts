import type { Snapshot } from './evidence';
import { digest } from './hashing';

/**
 * The identity half of "executable only when": the approved snapshot names this tool
 * and these exact args. The store half (result version and hashes, idempotency key)
 * is the domain adapter's recheck. Returns the mismatches, empty when it holds.
 */
export function snapshotIdentityMismatches(snapshot: Snapshot, tool: string, input: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (snapshot.tool !== tool) out.push(`tool: approved ${snapshot.tool}, about to run ${tool}`);
  const argsSha = digest(input);
  if (snapshot.args_sha256 !== argsSha)
    out.push(`args_sha256: approved ${snapshot.args_sha256.slice(0, 12)}…, about to run ${argsSha.slice(0, 12)}…`);
  return out;
}
