// approval-gate for OpenAI Agents JS (@openai/agents-core 0.14): tools with `needsApproval`
// interrupt the run as usual; `decide` opens one gate per interruption and applies each
// decision with `state.approve` / `state.reject`, and the wrapped tool runs only with args
// consumed from its approved gate. Types only are imported: the SDK is the caller's
// (peer-check still requires it to be installed, so a missing SDK is reported at import).
import './peer-check';
import type { FunctionTool, RunState, RunToolApprovalItem } from '@openai/agents-core';
import type { GatedCall } from '../common/call-evidence';
import { GateAdapterError, NotApprovedError } from '../common/errors';
import { ToolGates, type CallDecision, type ToolGatesOptions } from '../common/tool-gates';

export { httpGate, type HttpGateOptions } from '../common/http-transport';
export { clientGate, type GateClientLike } from '../common/client-transport';
export type { GateTransport } from '../common/transport';
export type { CallDescription, GatedCall } from '../common/call-evidence';
export type { CallDecision } from '../common/tool-gates';
export { GateAdapterError, GateRequestError, GateUnreachableError, NotApprovedError } from '../common/errors';
export { MissingPeerError } from '../common/peers';
export { ApprovalGateError, ConfigurationError, RefusedError, UnavailableError } from '../../common/errors';

/** Options of `approvalGate`: where the gates live and how a call becomes evidence. */
export type OpenAIAgentsGateOptions = ToolGatesOptions;

/** What the wrapped tool returns when a reviewer modified its args: the values that ran, then its own output. */
export interface ModifiedToolOutput {
  executed_input: unknown;
  modified_by_reviewer: true;
  approval_request_id: string;
  output: unknown;
}

/** A paused run: a `RunResult` (its `interruptions` and `state`) or a `RunState` restored with `RunState.fromString`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Paused = RunState<any, any> | { interruptions: RunToolApprovalItem[]; state: RunState<any, any> };

const FRAMEWORK = 'openai-agents';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyFunctionTool = FunctionTool<any, any, any>;

/**
 * Gates for an OpenAI Agents run. Wrap the tools that need approval with `tool(...)`;
 * after a run stops on interruptions, `await decide(result)` and run again with
 * `result.state`.
 */
export function approvalGate(options: OpenAIAgentsGateOptions) {
  const gates = new ToolGates(FRAMEWORK, options);
  return {
    /** The gate request id a call has (the same in every process). */
    requestId: (toolName: string, callId: string, args: unknown) => gates.requestId({ toolName, callId, args }),

    /** Wraps a function tool so that, when it needs approval, it runs only with args taken from its gate. */
    tool<T extends AnyFunctionTool>(t: T): T {
      return gatedTool(gates, t);
    },

    /**
     * Opens (or reattaches to) one gate per interruption, all at once, waits until every
     * one is decided, and applies the decisions to the run state: `approve` for an
     * approval (the wrapped tool then consumes it), `reject` with the reason as the
     * message the model sees for a rejection or an expiry. Returns the decisions in the
     * order of the interruptions. Throws GateAdapterError, before opening any gate, for
     * an interruption that is not a function tool call.
     */
    async decide(paused: Paused): Promise<CallDecision[]> {
      const state = 'state' in paused ? paused.state : paused;
      const items = 'interruptions' in paused ? paused.interruptions : state.getInterruptions();
      const calls = items.map(callOf);
      const decisions = await gates.decide(calls);
      decisions.forEach((d, i) => {
        const item = items[i]!;
        if (d.outcome === 'approved') state.approve(item);
        else state.reject(item, { message: d.reason });
      });
      return decisions;
    },
  };
}

function callOf(item: RunToolApprovalItem): GatedCall {
  const raw = item.rawItem;
  if (raw.type !== 'function_call') {
    throw new GateAdapterError(
      `approval-gate/openai-agents gates function tools; the ${raw.type} interruption must be approved another way`,
    );
  }
  return { toolName: raw.name, callId: raw.callId, args: parseArgs(raw.arguments) };
}

function gatedTool<T extends AnyFunctionTool>(gates: ToolGates, t: T): T {
  const invoke = t.invoke;
  const wrapped: T = {
    ...t,
    invoke: async (ctx, input, details) => {
      const callId = details?.toolCall?.callId;
      const args = parseArgs(input);
      // The SDK ran this check before pausing; a call that needed no approval has no gate.
      if (!(await t.needsApproval(ctx, args, callId))) return invoke(ctx, input, details);
      if (!callId) throw new GateAdapterError(`${t.name} needs approval but the SDK gave no call id`);
      let taken;
      try {
        taken = await gates.take({ toolName: t.name, callId, args });
      } catch (err) {
        // A refusal is the call's one result, as the model sees it; a thrown error would end the run.
        if (err instanceof NotApprovedError) return err.message;
        throw err;
      }
      const output = await invoke(ctx, JSON.stringify(taken.input), details);
      if (!taken.modified) return output;
      const modified: ModifiedToolOutput = {
        executed_input: taken.input,
        modified_by_reviewer: true,
        approval_request_id: taken.requestId,
        output,
      };
      return JSON.stringify(modified);
    },
  };
  return wrapped;
}

/** Tool arguments as the SDK passes them (a JSON string); anything else is kept as text. */
function parseArgs(text: string | undefined): unknown {
  if (text === undefined || text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
