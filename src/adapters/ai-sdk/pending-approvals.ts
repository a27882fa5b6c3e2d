import type { ModelMessage } from 'ai';
import type { GatedCall } from '../common/call-evidence';

/** An approval request the AI SDK emitted that has neither a response nor a tool result yet. */
export interface PendingApproval extends GatedCall {
  approvalId: string;
}

/**
 * The unanswered `tool-approval-request` parts of a conversation, in the order the
 * model made the calls. Reads the messages only to learn which calls wait; the
 * decisions themselves come from the gate server.
 */
export function pendingApprovals(messages: readonly ModelMessage[]): PendingApproval[] {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const requests: { approvalId: string; toolCallId: string }[] = [];
  const answered = new Set<string>();
  const resulted = new Set<string>();
  for (const m of messages) {
    if (typeof m.content === 'string') continue;
    if (m.role === 'assistant') {
      for (const part of m.content) {
        if (part.type === 'tool-call') calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
        if (part.type === 'tool-approval-request') requests.push(part);
        if (part.type === 'tool-result') resulted.add(part.toolCallId);
      }
    } else if (m.role === 'tool') {
      for (const part of m.content) {
        if (part.type === 'tool-approval-response') answered.add(part.approvalId);
        if (part.type === 'tool-result') resulted.add(part.toolCallId);
      }
    }
  }
  const out: PendingApproval[] = [];
  for (const r of requests) {
    const call = calls.get(r.toolCallId);
    if (!call || answered.has(r.approvalId) || resulted.has(r.toolCallId)) continue;
    out.push({ approvalId: r.approvalId, toolName: call.toolName, callId: r.toolCallId, args: call.input });
  }
  return out;
}
