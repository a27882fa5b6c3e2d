// approval-gate for the Vercel AI SDK (v6): tools marked `needsApproval` get one gate per
// call; decisions come back as the SDK's own tool-approval-response parts, and the tool
// runs only with args consumed from the gate.
import './peer-check';
import { asSchema, type ModelMessage, type Tool, type ToolApprovalResponse, type ToolSet } from 'ai';
import { ToolGates, type ToolGatesOptions } from '../common/tool-gates';
import { pendingApprovals } from './pending-approvals';

export { httpGate, type HttpGateOptions } from '../common/http-transport';
export { clientGate, type GateClientLike } from '../common/client-transport';
export type { GateTransport } from '../common/transport';
export type { CallDescription, GatedCall } from '../common/call-evidence';
export type { CallDecision } from '../common/tool-gates';
export { GateAdapterError, GateRequestError, GateUnreachableError, NotApprovedError } from '../common/errors';
export { MissingPeerError } from '../common/peers';
export { ApprovalGateError, ConfigurationError, RefusedError, UnavailableError } from '../../common/errors';
export { pendingApprovals, type PendingApproval } from './pending-approvals';

/** Options of `approvalGate`: where the gates live and how a call becomes evidence. */
export type AiSdkGateOptions = ToolGatesOptions;

/** The tool message `respond` returns: the SDK's approval responses, one per pending request. */
export interface ApprovalResponseMessage {
  role: 'tool';
  content: ToolApprovalResponse[];
}

/** What a tool returns when a reviewer modified its args: the values that ran, then its own output. */
export interface ModifiedToolOutput<OUTPUT = unknown> {
  executed_input: unknown;
  modified_by_reviewer: true;
  approval_request_id: string;
  output: OUTPUT;
}

const FRAMEWORK = 'ai-sdk';

/**
 * Gates for an AI SDK tool set. `tools(...)` wraps every tool that has `needsApproval`
 * so it runs only with args taken (consumed, once) from its approved gate; `respond`
 * opens the gates of a turn's pending approval requests and answers them from the gate
 * server. Throws nothing at construction.
 */
export function approvalGate(options: AiSdkGateOptions) {
  const gates = new ToolGates(FRAMEWORK, options);
  return {
    /** The gate request id a call has (the same in every process). */
    requestId: (toolName: string, toolCallId: string, input: unknown) =>
      gates.requestId({ toolName, callId: toolCallId, args: input }),

    /** Wraps the tools that need approval; the others are returned as they are. */
    tools<TOOLS extends ToolSet>(tools: TOOLS): TOOLS {
      const out: Record<string, Tool> = {};
      for (const [name, t] of Object.entries(tools)) out[name] = gatedTool(gates, name, t);
      return out as TOOLS;
    },

    /**
     * Opens (or reattaches to) a gate for every pending `tool-approval-request` in
     * `messages`, all at once, and waits until each is decided. Returns the tool message
     * to append before the next `generateText`/`streamText` call, or undefined when no
     * approval is pending. Rejections and expiries carry their reason to the model.
     */
    async respond(messages: readonly ModelMessage[]): Promise<ApprovalResponseMessage | undefined> {
      const pending = pendingApprovals(messages);
      if (pending.length === 0) return undefined;
      const decisions = await gates.decide(pending);
      return {
        role: 'tool',
        content: pending.map((p, i) => {
          const d = decisions[i]!;
          return d.outcome === 'approved'
            ? {
                type: 'tool-approval-response',
                approvalId: p.approvalId,
                approved: true,
                reason: `approved at approval-gate (${d.requestId})${d.modified ? ' with modified args' : ''}`,
              }
            : { type: 'tool-approval-response', approvalId: p.approvalId, approved: false, reason: d.reason };
        }),
      };
    },
  };
}

function gatedTool(gates: ToolGates, name: string, t: Tool): Tool {
  const execute = t.execute;
  if (t.needsApproval === undefined || t.needsApproval === false || !execute) return t;
  const check = async (input: unknown): Promise<string | undefined> => {
    const validate = t.inputSchema ? asSchema(t.inputSchema).validate : undefined;
    const r = validate ? await validate(input) : { success: true as const };
    return r.success ? undefined : r.error.message;
  };
  return {
    ...t,
    execute: async (input, opts) => {
      // The SDK asks again before running; a call that needed no approval has no gate.
      const needed =
        typeof t.needsApproval === 'function'
          ? await t.needsApproval(input, {
              toolCallId: opts.toolCallId,
              messages: opts.messages,
              experimental_context: opts.experimental_context,
            })
          : t.needsApproval === true;
      if (!needed) return execute(input, opts);
      const taken = await gates.take({ toolName: name, callId: opts.toolCallId, args: input }, check);
      const output: unknown = await execute(taken.input, opts);
      // A streamed output (async iterable) passes through as it is: there is no value to wrap.
      if (!taken.modified || isAsyncIterable(output)) return output;
      const modified: ModifiedToolOutput = {
        executed_input: taken.input,
        modified_by_reviewer: true,
        approval_request_id: taken.requestId,
        output,
      };
      return modified;
    },
  } as Tool;
}

function isAsyncIterable(v: unknown): boolean {
  return typeof v === 'object' && v !== null && Symbol.asyncIterator in v;
}
