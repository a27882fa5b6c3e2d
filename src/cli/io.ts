import { ApiError, UnreachableError } from './errors';
import { CommanderError } from 'commander';
import { ApprovalGateError } from '../common/errors';

/** Where a command writes; the real process streams, or buffers in tests. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Control characters (but newline and tab) and bidi overrides, shown as `?`: text from
 * agents must not move the cursor or recolour what a reviewer reads. JSON output is
 * unaffected, since JSON.stringify already escapes them.
 */
export function terminalSafe(t: string): string {
  return t.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '?');
}

/** stdout and stderr of this process. */
export const processIo: CliIo = {
  out: (t) => void process.stdout.write(terminalSafe(t.endsWith('\n') ? t : `${t}\n`)),
  err: (t) => void process.stderr.write(terminalSafe(t.endsWith('\n') ? t : `${t}\n`)),
};

/** Prints `json` verbatim (pretty) with `--json`, else the human text. */
export function emit(io: CliIo, json: boolean | undefined, value: unknown, human: () => string): void {
  io.out(json ? JSON.stringify(value, null, 2) : human());
}

/**
 * What a failed command prints on stderr: `error: <code>: <message>` and the details
 * for server refusals, the message for our own errors, the stack for bugs. Commander
 * errors are already printed by commander, so they yield nothing.
 */
export function describeError(err: unknown): string | undefined {
  if (err instanceof CommanderError) return undefined;
  if (err instanceof ApiError) {
    const lines = [`error: ${err.code}: ${err.message}`];
    if (hasContent(err.details)) lines.push(JSON.stringify(err.details, null, 2));
    if (err.status === 401) lines.push('hint: pass --key or set GATE_API_KEY');
    return lines.join('\n');
  }
  if (err instanceof UnreachableError)
    return `error: unreachable: ${err.message} (is \`gate dev\` or \`gate api\` running? set GATE_API_URL)`;
  // Ours on purpose (a bad rule file, a taken key id, a failed check), not a bug: the message, without a stack.
  if (err instanceof ApprovalGateError) return `error: ${err.message}`;
  return `error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
}

function hasContent(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  return typeof v !== 'object' || Object.keys(v).length > 0;
}
