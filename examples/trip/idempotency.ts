import { digest } from 'approval-gate';
import type { Db } from 'approval-gate/worker';
import { DomainToolError } from 'approval-gate';
import type { ToolOutput } from 'approval-gate/worker';

/** What one keyed execution did: its output, and whether this call performed the effect. */
export interface OnceResult {
  output: ToolOutput;
  /** False when the key had been used before and the stored output was returned. */
  fresh: boolean;
}

/**
 * Runs `effect` at most once per idempotency key. The key is claimed, the effect
 * written and the output stored in ONE transaction, so a retried activity (even one
 * whose worker died right after the commit) gets the first output and writes nothing.
 *
 * Concurrency: on PostgreSQL a second transaction's `INSERT ... ON CONFLICT DO NOTHING`
 * waits for the first to commit, then inserts nothing and (read committed) sees the
 * stored output. SQLite transactions are serialised by `BEGIN IMMEDIATE`.
 *
 * Throws when the key was used for another session, tool or input (a reused key is a
 * bug upstream, never a reason to return someone else's result), or when `effect` throws
 * (then nothing is stored, so a later call may try again).
 */
export async function runOnce(
  db: Db,
  key: string,
  scope: { sessionId: string; tool: string; input: Record<string, unknown> },
  effect: (tx: Db) => Promise<ToolOutput>,
): Promise<OnceResult> {
  if (!key) throw new Error('an idempotency key is required to run a trip tool that writes');
  const inputSha = digest(scope.input);
  return db.transaction(async (tx) => {
    const claim = await tx.run(
      // Output is filled in below, inside the same transaction; nobody ever sees the empty value.
      `INSERT INTO trip_idempotency (idempotency_key, session_id, tool, input_sha256, output, created_at)
       VALUES (?, ?, ?, ?, '', ?) ON CONFLICT (idempotency_key) DO NOTHING`,
      [key, scope.sessionId, scope.tool, inputSha, new Date().toISOString()],
    );
    if (claim.changes === 0)
      return { output: await storedOutput(tx, key, scope.sessionId, scope.tool, inputSha), fresh: false };
    const output = await effect(tx);
    await tx.run('UPDATE trip_idempotency SET output = ? WHERE idempotency_key = ?', [JSON.stringify(output), key]);
    return { output, fresh: true };
  });
}

async function storedOutput(
  tx: Db,
  key: string,
  sessionId: string,
  tool: string,
  inputSha: string,
): Promise<ToolOutput> {
  const [row] = await tx.query<{ session_id: string; tool: string; input_sha256: string; output: string }>(
    'SELECT session_id, tool, input_sha256, output FROM trip_idempotency WHERE idempotency_key = ?',
    [key],
  );
  if (!row || !row.output) throw new Error(`idempotency key ${key} is claimed but has no stored output; retry later`);
  if (row.session_id !== sessionId || row.tool !== tool || row.input_sha256 !== inputSha)
    throw new DomainToolError(
      `idempotency key ${key} was already used for ${row.tool} in session ${row.session_id} with other input; refusing to run it again`,
    );
  return JSON.parse(row.output) as ToolOutput;
}

/** Whether a keyed execution committed (the claim, the effect and the output are one transaction). */
export async function tripKeyUsed(db: Db, key: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 AS used FROM trip_idempotency WHERE idempotency_key = ?', [key]);
  return rows.length > 0;
}
