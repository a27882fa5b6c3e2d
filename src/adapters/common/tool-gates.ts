import { digest } from '../../common/hashing';
import {
  argsObject,
  callEvidence,
  gateKey,
  gateRequestId,
  toolInput,
  type EvidenceOptions,
  type GatedCall,
} from './call-evidence';
import { GateAdapterError, GateRequestError, NotApprovedError } from './errors';
import type { GateStatusView, GateTransport } from './transport';

/** Options every adapter takes. */
export interface ToolGatesOptions extends EvidenceOptions {
  /** Where the gates live: `httpGate({...})` or `clientGate(gateClient, {...})`. */
  gate: GateTransport;
  /** How often a pending gate is read; default 1000 ms. */
  pollIntervalMs?: number;
  /** Stops waiting (the gates stay open; asking again later reattaches). */
  signal?: AbortSignal;
}

/** A gate's answer for one call, as read from the server. */
export type CallDecision =
  | {
      outcome: 'approved';
      requestId: string;
      /** The args to run: the model's, or the reviewer's modification. */
      input: unknown;
      modified: boolean;
      reviewer?: string;
    }
  | {
      outcome: 'denied' | 'expired' | 'cancelled' | 'invalidated' | 'consumed';
      requestId: string;
      /** A sentence for the model: what happened and why, naming the request. */
      reason: string;
    };

/** What `take` returns: the input to run the tool with, from the gate. */
export interface TakenApproval {
  requestId: string;
  input: unknown;
  /** True when the gate's args differ from the ones the framework passed. */
  modified: boolean;
}

/**
 * One gate per tool call, keyed by the framework's call id. `decide` opens (or
 * reattaches to) the gates of a batch concurrently and waits until all are decided;
 * `take` consumes an approval right before the tool runs, exactly once.
 */
export class ToolGates {
  constructor(
    private readonly framework: string,
    private readonly o: ToolGatesOptions,
  ) {}

  /** The gate id of a call: the same in every process, so a restarted agent finds its gate. */
  requestId(call: GatedCall): string {
    return gateRequestId(this.o.gate, this.framework, call, this.o.scope);
  }

  /** Opens the call's gate, or finds the one an earlier attempt opened. Throws GateRequestError. */
  async open(call: GatedCall): Promise<string> {
    const body = callEvidence(this.framework, this.o.gate.agentId, call, this.o);
    const opened = await this.o.gate.create(body, gateKey(this.framework, call, this.o.scope));
    if (opened.request_id !== this.requestId(call)) {
      // Execution looks the gate up by this id; a mismatch means the transport names the wrong agent or tenant.
      throw new GateAdapterError(
        `the gate server opened ${opened.request_id} for ${call.toolName} call ${call.callId}, not ${this.requestId(call)}: check the transport's agentId and tenant`,
      );
    }
    return opened.request_id;
  }

  /**
   * Opens every call's gate at once and resolves when all are decided, in call order.
   * When one fails (a refused create, an unreachable server) the others stop waiting
   * too; their gates stay open, and asking again reattaches to them.
   */
  async decide(calls: readonly GatedCall[]): Promise<CallDecision[]> {
    const stop = new AbortController();
    const signal = this.o.signal ? AbortSignal.any([this.o.signal, stop.signal]) : stop.signal;
    try {
      return await Promise.all(calls.map(async (call) => this.wait(call, await this.open(call), signal)));
    } finally {
      stop.abort();
    }
  }

  /** Polls a gate until it leaves `requested`. */
  async wait(call: GatedCall, requestId: string, signal = this.o.signal): Promise<CallDecision> {
    for (;;) {
      signal?.throwIfAborted();
      const view = await this.o.gate.get(requestId);
      const d = decisionOf(call, view);
      if (d) return d;
      await sleep(this.o.pollIntervalMs ?? 1000, signal);
    }
  }

  /**
   * Consumes the call's approval at the gate and returns the input to run. Throws
   * NotApprovedError, before anything runs, when there is no gate for this call, it is
   * not approved, its approval was already used (by this or an earlier process), or
   * `check` finds the approved input unfit for the tool (then the approval stays unused).
   */
  async take(call: GatedCall, check?: (input: unknown) => Promise<string | undefined>): Promise<TakenApproval> {
    const requestId = this.requestId(call);
    const refuse = (status: string, why: string) =>
      new NotApprovedError(requestId, status, `${call.toolName} was not run: ${why}`);
    let view: GateStatusView;
    try {
      view = await this.o.gate.get(requestId);
    } catch (err) {
      if (err instanceof GateRequestError && err.status === 404) {
        throw refuse('none', `no approval gate exists for call ${call.callId}`);
      }
      throw err;
    }
    if (view.status !== 'approved') {
      const d = decisionOf(call, view);
      throw refuse(view.status, d && d.outcome !== 'approved' ? d.reason : `its gate ${requestId} has no decision yet`);
    }
    const problem = await check?.(toolInput(call.args, view.final_args ?? argsObject(call.args)));
    if (problem)
      throw refuse('approved', `the approved args do not fit the tool (${problem}); the approval was not used`);
    let consumed;
    try {
      consumed = await this.o.gate.consume(requestId);
    } catch (err) {
      if (err instanceof GateRequestError && err.status === 409) {
        throw refuse('consumed', `the approval ${requestId} was already used; it is not run a second time`);
      }
      throw err;
    }
    return {
      requestId,
      input: toolInput(call.args, consumed.args),
      modified: consumed.args_sha256 !== digest(argsObject(call.args)),
    };
  }
}

/** The decision a gate's state stands for, or undefined while it is pending. */
export function decisionOf(call: GatedCall, v: GateStatusView): CallDecision | undefined {
  const id = v.request_id;
  switch (v.status) {
    case 'requested':
      return undefined;
    case 'approved':
      return {
        outcome: 'approved',
        requestId: id,
        input: v.final_args ? toolInput(call.args, v.final_args) : call.args,
        modified: v.modified_by !== undefined,
        ...(v.decision?.reviewer_id ? { reviewer: v.decision.reviewer_id } : {}),
      };
    case 'denied': {
      const who = v.decision?.reviewer_id ?? 'a reviewer';
      return {
        outcome: 'denied',
        requestId: id,
        reason: `${who} rejected this call (${id}): ${v.decision?.reason ?? v.status_reason ?? 'no reason given'}`,
      };
    }
    case 'expired':
      return {
        outcome: 'expired',
        requestId: id,
        reason: `the approval request ${id} expired (${v.status_reason ?? `no decision by ${v.expires_at ?? 'its deadline'}`}); the call was not run`,
      };
    case 'consumed':
      return {
        outcome: 'consumed',
        requestId: id,
        reason: `the approval for this call (${id}) was already used; it is not run a second time`,
      };
    case 'cancelled':
    case 'invalidated':
      return {
        outcome: v.status,
        requestId: id,
        reason: `the approval request ${id} was ${v.status}${v.status_reason ? `: ${v.status_reason}` : ''}`,
      };
    default:
      return { outcome: 'invalidated', requestId: id, reason: `the approval request ${id} is ${v.status}` };
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort(): void {
      clearTimeout(t);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}
