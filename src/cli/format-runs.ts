import type { Json } from './http';
import { renderFields } from './table';

function list(v: unknown): Json[] {
  return Array.isArray(v) ? (v as Json[]) : [];
}

function str(v: unknown): string {
  return v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
}

/** One conversation message as a few readable lines; system prompts are left out. */
export function formatMessage(m: Json): string | undefined {
  const role = str(m.role) || '?';
  if (role === 'system') return undefined;
  if (role === 'tool') return `tool [${str(m.tool_call_id)}] ${str(m.outcome)}: ${str(m.content)}`;
  const lines: string[] = [];
  if (m.content) lines.push(`${role}: ${str(m.content)}`);
  for (const c of list(m.tool_calls))
    lines.push(`${role} -> ${str(c.name)}(${JSON.stringify(c.args ?? {})}) [${str(c.id)}]`);
  return lines.length ? lines.join('\n') : `${role}:`;
}

/** The block `gate run show` prints: status, the conversation, and what the run waits on. */
export function formatRun(run: Json): string {
  const out = [
    renderFields([
      ['run', str(run.run_id)],
      ['status', str(run.status)],
      ['goal', run.goal === undefined ? undefined : str(run.goal)],
      ['answer', run.final_answer === undefined ? undefined : str(run.final_answer)],
      ['error', run.error ? str(run.error) : undefined],
    ]),
  ];
  const messages = list(run.messages)
    .map(formatMessage)
    .filter((m): m is string => m !== undefined);
  if (messages.length) out.push('messages:', ...messages.map(indent));
  const pending = list(run.pending_approvals);
  if (pending.length) {
    out.push('waiting for approval (gate approvals show <id>):');
    for (const p of pending) out.push(indent(`${str(p.request_id)}  ${str(p.tool)}  call ${str(p.call_id)}`));
  }
  const asks = list(run.pending_interactions);
  if (asks.length) {
    out.push('waiting for input:');
    for (const a of asks) {
      const options = Array.isArray(a.options) ? `  options: ${a.options.map(str).join(', ')}` : '';
      out.push(indent(`${str(a.id)}  ${str(a.type)}  ${str(a.prompt)}${options}`));
    }
  }
  return out.join('\n');
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
