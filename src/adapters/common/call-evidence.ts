import { MAX_SUMMARY_CHARS, requestIdFor } from '../../common/evidence';
import { digest } from '../../common/hashing';
import { DEFAULT_TENANT } from '../../common/tenant';

/** One tool call as every framework has it: a name, the framework's call id and the model's input. */
export interface GatedCall {
  toolName: string;
  /** The framework's tool call id; the gate is keyed by it. */
  callId: string;
  /** The input the model proposed (an object for most tools). */
  args: unknown;
}

/** Evidence fields a user may set per call; the adapter fills the rest. */
export interface CallDescription {
  /** Namespaced verb; default `tool.<tool name>`. */
  action?: string;
  /** Canonical id of what the call changes; default `tool:<tool name>`. */
  target?: string;
  /** One line for the reviewer (at most 120 characters); default the name and args. */
  summary?: string;
  /** Concrete impact: integer amounts or short unit labels. */
  blast_radius?: Record<string, number | string>;
  /** Extra conditions recorded in the evidence, beside the tool name and call id. */
  preconditions?: Record<string, unknown>;
}

/** How the adapter turns calls into gates; shared by the three adapters. */
export interface EvidenceOptions {
  /** Seconds a gate waits for a decision before it expires (fails closed); default 3600. */
  ttlSeconds?: number;
  /** Distinct reviewers needed; default 1. */
  approvalsRequired?: number;
  /**
   * Where the call ids are unique (a conversation or thread id). Part of the gate key,
   * so two conversations whose model reuses a call id get two gates.
   */
  scope?: string;
  /** Trace id for the gates; default the scope, else the call id. */
  correlationId?: string;
  /** Per-call evidence: action, target, summary, blast radius. */
  describe?: (call: GatedCall) => CallDescription | undefined;
}

/** Controls and bidi overrides the evidence schema refuses in display text. */
const DISPLAY_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Tool args as the evidence carries them: an object, with any other value under `input`. */
export function argsObject(args: unknown): Record<string, unknown> {
  return isPlainObject(args) ? args : { input: args ?? null };
}

/** The inverse of `argsObject`: what the tool is called with, given the gate's args. */
export function toolInput(original: unknown, gateArgs: Record<string, unknown>): unknown {
  return isPlainObject(original) ? gateArgs : gateArgs.input;
}

/** The gate's idempotency key for a call: framework, scope, tool name and call id. */
export function gateKey(framework: string, call: GatedCall, scope?: string): string {
  return `ag1_${digest(['approval-gate/adapter', framework, scope ?? null, call.toolName, call.callId])}`;
}

/**
 * The request id the server gives the call's gate (deterministic: a restart finds the
 * same gate). As the server derives it: outside the default tenant the tenant is part of it.
 */
export function gateRequestId(
  caller: { agentId: string; tenant?: string },
  framework: string,
  call: GatedCall,
  scope?: string,
): string {
  const t = caller.tenant;
  const owner = t === undefined || t === DEFAULT_TENANT ? caller.agentId : `${t}/${caller.agentId}`;
  return requestIdFor(owner, gateKey(framework, call, scope));
}

/** A `POST /v1/approvals` body for one tool call. */
export function callEvidence(
  framework: string,
  agentId: string,
  call: GatedCall,
  o: EvidenceOptions,
): Record<string, unknown> {
  const d = o.describe?.(call) ?? {};
  return {
    correlation_id: o.correlationId ?? o.scope ?? call.callId,
    agent_id: agentId,
    trigger_event_id: call.callId,
    action: d.action ?? `tool.${slug(call.toolName)}`,
    target: display(d.target ?? `tool:${call.toolName}`, 500),
    summary: display(d.summary ?? `${call.toolName} ${JSON.stringify(call.args ?? null)}`, MAX_SUMMARY_CHARS),
    blast_radius: d.blast_radius ?? {},
    args: argsObject(call.args),
    // The tool name and call id are inside the hashed payload, so a decision binds to them.
    preconditions: { ...d.preconditions, framework, tool_name: call.toolName, tool_call_id: call.callId },
    ttl_seconds: o.ttlSeconds ?? 3600,
    approvals_required: o.approvalsRequired ?? 1,
  };
}

/** A tool name as one segment of a namespaced verb: lower case, [a-z0-9_], starting with a letter. */
function slug(name: string): string {
  const s = name.toLowerCase().replace(/[^a-z0-9_]+/g, '_');
  return /^[a-z]/.test(s) ? s.slice(0, 90) : `t_${s}`.slice(0, 90);
}

function display(text: string, max: number): string {
  const clean = text.replace(DISPLAY_UNSAFE, ' ').trim() || '(no text)';
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
