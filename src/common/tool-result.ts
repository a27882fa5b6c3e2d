import type { ToolMessage } from './conversation';

/** One schema problem with a call's args: a zod issue, or a domain issue with a dotted path. */
export interface ArgIssue {
  path: string | readonly PropertyKey[];
  message: string;
}

/** Facts every result may carry for templates, tests and the UI (request ids, draft ids). */
interface Common {
  values?: Record<string, unknown>;
}

/**
 * What happened to one call, as the loop knows it. `toolResultMessage` turns it into
 * the one tool message the model reads. Snake_case: it crosses workflow boundaries.
 */
export type ToolResultInput = Common &
  (
    | {
        outcome: 'success';
        /** The tool's text. */
        content: string;
        /** Set only when a reviewer modified the args: the values that really ran. */
        executed_values?: Record<string, unknown>;
      }
    | { outcome: 'failure'; /** What the tool raised. */ error: string }
    | { outcome: 'blocked'; /** Why policy refused, in words the model can act on. */ reason: string }
    | { outcome: 'denied'; /** The reviewer's reason. */ reason: string; reviewer_id?: string }
    | { outcome: 'expired'; /** The deadline that passed (ISO 8601). */ expires_at?: string }
    | { outcome: 'invalidated'; /** What drifted since the approval. */ mismatches: readonly string[] }
    | { outcome: 'cancelled'; reason?: string }
    | { outcome: 'unknown_tool'; /** The name the model used. */ tool: string; known_tools: readonly string[] }
    | { outcome: 'invalid_args'; tool: string; issues: readonly ArgIssue[] }
  );

/** Longest error or reason text passed back to the model. */
const MAX_DETAIL_CHARS = 2000;

/**
 * Builds the one tool message for call `callId`. The wording is part of the contract:
 * the model must report executed values (not its proposal), must not retry a denial,
 * and must be able to tell a policy block (nothing ran) from an execution failure.
 */
export function toolResultMessage(callId: string, r: ToolResultInput): ToolMessage {
  const values: Record<string, unknown> = { ...extraValues(r), ...r.values };
  const message: ToolMessage = { role: 'tool', tool_call_id: callId, outcome: r.outcome, content: resultText(r) };
  if (Object.keys(values).length > 0) message.values = values;
  return message;
}

/** The content text for each outcome. */
export function resultText(r: ToolResultInput): string {
  switch (r.outcome) {
    case 'success': {
      const content = r.content.trim() === '' ? 'Done.' : r.content;
      if (!r.executed_values) return content;
      return (
        `${content} (A reviewer modified the arguments. The executed values are: ${formatArgs(r.executed_values)}. ` +
        'Report these values, not your original proposal.)'
      );
    }
    case 'failure':
      return `The tool ran and failed: ${sentence(r.error)}. This is an execution error, not a policy decision.`;
    case 'blocked':
      return `Blocked by policy: ${sentence(r.reason)}. Nothing ran.`;
    case 'denied':
      return `A reviewer rejected this call. Reason: ${sentence(r.reason)}. Do not run it again; explain and suggest alternatives.`;
    case 'expired':
      return (
        `No reviewer decided before the deadline${r.expires_at ? ` (${r.expires_at})` : ''}; ` +
        'the request expired and nothing ran (fails closed). Do not assume it was approved; ' +
        'tell the user the approval lapsed and that it can be requested again.'
      );
    case 'invalidated':
      return (
        `Blocked by policy: the approved snapshot no longer matches (${r.mismatches.map(clip).join('; ') || 'unspecified change'}); ` +
        'nothing ran. The approval no longer applies; if the action is still wanted, it needs a new request.'
      );
    case 'cancelled':
      return `The approval request was cancelled${r.reason ? ` (${sentence(r.reason)})` : ''} before a decision; nothing ran.`;
    case 'unknown_tool':
      return `Unknown tool "${clip(r.tool)}"; nothing ran. Known tools: ${r.known_tools.join(', ') || '(none)'}.`;
    case 'invalid_args':
      return (
        `Invalid arguments for ${clip(r.tool)}; nothing ran. ` +
        `Fix these and call again: ${r.issues.map(formatIssue).join('; ') || 'the arguments are not valid'}.`
      );
  }
}

/** `budget=500000, days=2`: the executed values as the model should repeat them. */
export function formatArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
}

/** Outcome-specific facts kept in `values`, so a final answer can quote them without parsing text. */
function extraValues(r: ToolResultInput): Record<string, unknown> {
  switch (r.outcome) {
    case 'success':
      return r.executed_values ? { ...r.executed_values } : {};
    case 'failure':
      return { error: clip(r.error) };
    case 'blocked':
      return { reason: clip(r.reason) };
    case 'denied':
      return r.reviewer_id ? { reason: clip(r.reason), reviewer_id: r.reviewer_id } : { reason: clip(r.reason) };
    case 'expired':
      return r.expires_at ? { expires_at: r.expires_at } : {};
    case 'invalidated':
      return { mismatches: [...r.mismatches] };
    case 'cancelled':
      return r.reason ? { reason: clip(r.reason) } : {};
    case 'unknown_tool':
      return { tool: r.tool };
    case 'invalid_args':
      return { issues: r.issues.map(formatIssue) };
  }
}

function formatIssue(issue: ArgIssue): string {
  const path = typeof issue.path === 'string' ? issue.path : issue.path.map(String).join('.');
  return `${path || '(arguments)'}: ${clip(issue.message)}`;
}

/** A reason as the middle of a sentence: trimmed, clipped, without its own final period. */
function sentence(text: string): string {
  return clip(text.trim()).replace(/[.\s]+$/, '') || 'no reason given';
}

function clip(text: string): string {
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}
