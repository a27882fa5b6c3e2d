import type { Json } from './http';
import { renderFields } from './table';

function list(v: unknown): Json[] {
  return Array.isArray(v) ? (v as Json[]) : [];
}

/** One conversation message as a few readable lines. */
export function formatMessage(m: Json): string {
  const role = String(m.role ?? '?');
  const lines: string[] = [];
  if (role === 'tool') {
    lines.push(`tool [${String(m.tool_call_id ?? '')}] ${String(m.outcome ?? '')}: ${String(m.content ?? '')}`);
  } else {
    if (m.content) lines.push(`${role}: ${String(m.content)}`);
    for (const c of list(m.tool_calls)) lines.push(`${role} -> ${String(c.name ?? '')}(${JSON.stringify(c.args ?? c.arguments ?? {})}) [${String(c.id ?? '')}]`);
    if (lines.length === 0) lines.push(`${role}:`);
  }
  return lines.join('\n');
}

/** The block `gate run show` prints: status, the conversation, and what the run waits on. */
export function formatRun(run: Json): string {
  const pending = list(run.pending_approvals);
  const asks = list(run.pending_interactions);
  const out = [
    renderFields([
      ['run', String(run.run_id ?? '')],
      ['status', String(run.status ?? '')],
      ['error', run.error ? String(typeof run.error === 'string' ? run.error : JSON.stringify(run.error)) : undefined],
    ]),
  ];
  const messages = list(run.messages);
  if (messages.length) out.push('messages:', ...messages.map((m) => indent(formatMessage(m))));
  if (pending.length) {
    out.push('waiting for approval:');
    for (const p of pending) out.push(indent(`${String(p.request_id ?? p.approval_id ?? '')}  ${String(p.status ?? '')}  ${String(p.summary ?? (p.payload as Json | undefined)?.summary ?? '')}`));
  }
  if (asks.length) {
    out.push('waiting for input:');
    for (const a of asks) out.push(indent(`${String(a.interaction_id ?? a.id ?? '')}  ${String(a.type ?? '')}  ${String(a.prompt ?? '')}`));
  }
  return out.join('\n');
}

function indent(s: string): string {
  return s.split('\n').map((l) => `  ${l}`).join('\n');
}
