import type { AssistantMessage, Message, ToolMessage } from '../../common/conversation';
import { ModelExhausted } from './errors';
import type { Model, ModelInput, ScriptedModelSpec } from '../../common/model-spec';

const TEMPLATE = /\{\{\s*(result|value|outcome):([A-Za-z0-9_-]+)(?:\.([^}\s]+))?\s*\}\}/g;

/**
 * A deterministic model: turn i answers the i-th call, where i is the number of
 * assistant messages already in the conversation (so a retried or replayed call gets the
 * same turn). Throws `ModelExhausted` when the script has no turn i. Content templates
 * let a final answer report what really ran; see `renderTemplate`.
 */
export function createScriptedModel(spec: ScriptedModelSpec): Model {
  return {
    async next({ messages }: ModelInput): Promise<AssistantMessage> {
      const i = messages.filter((m) => m.role === 'assistant').length;
      const turn = spec.turns[i];
      if (!turn) {
        throw new ModelExhausted(`the scripted model has ${spec.turns.length} turn(s) and was asked for turn ${i + 1}`);
      }
      const message: AssistantMessage = { role: 'assistant', content: renderTemplate(turn.content ?? '', messages) };
      if (turn.tool_calls?.length) {
        message.tool_calls = turn.tool_calls.map((c) => ({
          id: c.id,
          name: c.name,
          args: JSON.parse(JSON.stringify(c.args ?? {})),
        }));
      }
      return message;
    },
  };
}

/**
 * Replaces `{{result:<id>}}` (that tool result's content), `{{value:<id>.<key>}}`
 * (`values[key]` of that result; numbers with thousands separators) and
 * `{{outcome:<id>}}`. A reference to a missing result or key renders `<unknown: …>`.
 */
export function renderTemplate(text: string, messages: readonly Message[]): string {
  const results = new Map<string, ToolMessage>();
  for (const m of messages) if (m.role === 'tool') results.set(m.tool_call_id, m);
  return text.replace(TEMPLATE, (whole, kind: string, id: string, key: string | undefined) => {
    const ref = whole.slice(2, -2).trim();
    const r = results.get(id);
    if (!r) return `<unknown: ${ref}>`;
    if (kind === 'result' && key === undefined) return r.content;
    if (kind === 'outcome' && key === undefined) return r.outcome;
    if (kind === 'value' && key !== undefined && r.values && Object.prototype.hasOwnProperty.call(r.values, key)) {
      return formatValue(r.values[key]);
    }
    return `<unknown: ${ref}>`;
  });
}

/** 500000 → "500,000"; strings as they are; anything else as JSON. */
export function formatValue(v: unknown): string {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const [int = '', frac] = String(Math.abs(v)).split('.');
    const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return `${v < 0 ? '-' : ''}${grouped}${frac ? `.${frac}` : ''}`;
  }
  if (typeof v === 'string') return v;
  return JSON.stringify(v) ?? String(v);
}
