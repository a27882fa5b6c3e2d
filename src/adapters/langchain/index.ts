// approval-gate for LangChain v1 agents: a drop-in alternative to
// `humanInTheLoopMiddleware({ interruptOn })`. Instead of `interrupt()` and a resume
// `Command`, the gated calls of a model turn wait on gates; decisions (approve / edit /
// reject, in the order of the calls) come from the gate server, and each approved call
// consumes its gate right before the tool runs.
import './peer-check';
import { AIMessage, ToolMessage, createMiddleware } from 'langchain';
import { ToolGates, type CallDecision, type ToolGatesOptions } from '../common/tool-gates';
import { NotApprovedError } from '../common/errors';
import type { GatedCall } from '../common/call-evidence';

export { httpGate, type HttpGateOptions } from '../common/http-transport';
export { clientGate, type GateClientLike } from '../common/client-transport';
export type { GateTransport } from '../common/transport';
export type { CallDescription, GatedCall } from '../common/call-evidence';
export type { CallDecision } from '../common/tool-gates';
export { GateAdapterError, GateRequestError, GateUnreachableError, NotApprovedError } from '../common/errors';
export { MissingPeerError } from '../common/peers';
export { ApprovalGateError, ConfigurationError, RefusedError, UnavailableError } from '../../common/errors';

/** One tool call as LangChain has it. */
export interface LangChainToolCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/** The decision words of LangChain's HITL middleware. */
export type HitlDecision = 'approve' | 'edit' | 'reject';

/** Per-tool settings, as in `humanInTheLoopMiddleware`'s `interruptOn`. */
export interface InterruptOnConfig {
  /** Decisions this tool accepts; a gate decision outside them is turned into a rejection. Default all three. */
  allowedDecisions?: HitlDecision[];
  /** The reviewer's one line (the evidence summary, cut to 120 characters). */
  description?: string | ((toolCall: LangChainToolCall) => string);
  /** Gate only the calls this returns true for; the others run without approval. */
  when?: (request: { toolCall: LangChainToolCall }) => boolean | Promise<boolean>;
}

export interface ApprovalGateMiddlewareOptions extends ToolGatesOptions {
  /** Tools to gate: `true` (all decisions), `false` (never) or per-tool settings. */
  interruptOn: Record<string, boolean | InterruptOnConfig>;
}

const FRAMEWORK = 'langchain';

/**
 * The middleware. With no `scope` option the gates are scoped by the run's
 * `configurable.thread_id`, so a resumed thread finds its gates. Without a checkpointer a
 * restarted process calls the model again, and a real model makes new call ids.
 */
export function approvalGateMiddleware(options: ApprovalGateMiddlewareOptions) {
  const configs = resolve(options.interruptOn);
  const gatesFor = (runtime: { configurable?: { thread_id?: unknown } } | undefined): ToolGates => {
    const thread = runtime?.configurable?.thread_id;
    const scope = options.scope ?? (typeof thread === 'string' ? thread : undefined);
    return new ToolGates(FRAMEWORK, { ...options, scope, describe: describeWith(configs, options.describe) });
  };
  const gated = async (call: LangChainToolCall): Promise<boolean> => {
    const c = configs.get(call.name);
    return c !== undefined && (c.when ? await c.when({ toolCall: call }) : true);
  };

  return createMiddleware({
    name: 'ApprovalGateMiddleware',
    afterModel: {
      canJumpTo: ['model'],
      hook: async (state, runtime) => {
        const last = [...state.messages].reverse().find((m) => AIMessage.isInstance(m));
        if (!last || !last.tool_calls?.length) return undefined;
        const answered = new Set(state.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => m.tool_call_id));
        const calls = last.tool_calls.filter((c) => c.id !== undefined && !answered.has(c.id));
        const waiting: LangChainToolCall[] = [];
        for (const c of calls) if (await gated(c)) waiting.push(c);
        if (waiting.length === 0) return undefined;

        const decisions = await gatesFor(runtime).decide(waiting.map(gatedCall));
        const byId = new Map(waiting.map((c, i) => [c.id!, decisions[i]!]));
        const rejected: ToolMessage[] = [];
        last.tool_calls = last.tool_calls.map((c) => {
          const d = c.id === undefined ? undefined : byId.get(c.id);
          if (!d) return c;
          const refusal = refusalOf(d, configs.get(c.name)!);
          if (refusal === undefined && d.outcome === 'approved') {
            // An edit rewrites the call in the AI message, so the model sees the args that run.
            return { ...c, args: d.input as Record<string, unknown> };
          }
          rejected.push(new ToolMessage({ content: refusal!, name: c.name, tool_call_id: c.id!, status: 'error' }));
          return c;
        });
        const pending = last.tool_calls.filter(
          (c) => !answered.has(c.id!) && !rejected.some((r) => r.tool_call_id === c.id),
        );
        // With every call answered here, nothing is left for the tools node: go back to the model.
        return { messages: [last, ...rejected], ...(pending.length === 0 ? { jumpTo: 'model' as const } : {}) };
      },
    },
    wrapToolCall: async (request, handler) => {
      const call = request.toolCall as LangChainToolCall;
      if (call.id === undefined || !(await gated(call))) return handler(request);
      try {
        const taken = await gatesFor(request.runtime).take(gatedCall(call));
        return await handler({
          ...request,
          toolCall: { ...request.toolCall, args: taken.input as Record<string, unknown> },
        });
      } catch (err) {
        if (!(err instanceof NotApprovedError)) throw err;
        return new ToolMessage({ content: err.message, name: call.name, tool_call_id: call.id, status: 'error' });
      }
    },
  });
}

/** The gate request id of a tool call in a thread (what the middleware opens). */
export function gateRequestIdFor(
  options: Pick<ApprovalGateMiddlewareOptions, 'gate' | 'scope'>,
  call: { name: string; id: string },
  threadId?: string,
): string {
  const gates = new ToolGates(FRAMEWORK, { ...options, scope: options.scope ?? threadId });
  return gates.requestId({ toolName: call.name, callId: call.id, args: {} });
}

function gatedCall(c: LangChainToolCall): GatedCall {
  return { toolName: c.name, callId: c.id!, args: c.args };
}

/** Why an approved decision is not run (a decision the tool does not allow), or the reason of a refusal. */
function refusalOf(d: CallDecision, c: Required<Pick<InterruptOnConfig, 'allowedDecisions'>>): string | undefined {
  if (d.outcome !== 'approved') return d.reason;
  const word: HitlDecision = d.modified ? 'edit' : 'approve';
  if (c.allowedDecisions.includes(word)) return undefined;
  return `the reviewer's decision (${word}, ${d.requestId}) is not allowed for this tool; the call was not run`;
}

type Resolved = InterruptOnConfig & Required<Pick<InterruptOnConfig, 'allowedDecisions'>>;

function resolve(interruptOn: ApprovalGateMiddlewareOptions['interruptOn']): Map<string, Resolved> {
  const out = new Map<string, Resolved>();
  for (const [name, c] of Object.entries(interruptOn)) {
    if (c === false) continue;
    const cfg = c === true ? {} : c;
    out.set(name, { ...cfg, allowedDecisions: cfg.allowedDecisions ?? ['approve', 'edit', 'reject'] });
  }
  return out;
}

function describeWith(
  configs: Map<string, Resolved>,
  describe: ToolGatesOptions['describe'],
): NonNullable<ToolGatesOptions['describe']> {
  return (call) => {
    const own = describe?.(call) ?? {};
    const d = configs.get(call.toolName)?.description;
    const summary =
      typeof d === 'function'
        ? d({ id: call.callId, name: call.toolName, args: call.args as Record<string, unknown> })
        : d;
    return summary !== undefined && own.summary === undefined ? { ...own, summary } : own;
  };
}
