import { openGate } from './open-gate';
import { outcomeOf } from './require-approval';
import type { ApprovalRequest, CancelledOutcome, DeniedOutcome, ExpiredOutcome, RequireApprovalOptions } from './types';

/** What the gated activity is given beside its approved args. */
export interface GatedCall {
  /** The gate's request id. */
  request_id: string;
  /** = request_id: make the effect idempotent by it, so an activity retry has no second effect. */
  idempotency_key: string;
  /** The reviewers who approved. */
  approvers: string[];
  /** True when a reviewer changed the args. */
  modified: boolean;
}

/** How a gated activity asks for approval. */
export interface ApprovalSpec<A> {
  /** The evidence a reviewer sees for one call; the call's args are sent as the request's `args`. */
  request: (args: A) => Omit<ApprovalRequest, 'args'>;
  /**
   * Name of one of your activities, run by the gate right after the approval and before
   * the hand-over, with `{ request_id, action, target, args, preconditions, snapshot? }`
   * (the approved args). It answers `{ ok: true }` or `{ ok: false, reason, mismatches }`:
   * a mismatch (or a recheck that keeps failing) ends the gate `invalidated`, a policy
   * block, and the activity does not run. Validate a reviewer's modified args here too.
   */
  recheck?: string;
  /** Task queue of the recheck activity; default the calling workflow's task queue. */
  recheckTaskQueue?: string;
  /** Where the gate runs and its id (default: derived from this workflow's id). */
  options?: RequireApprovalOptions | ((args: A) => RequireApprovalOptions);
}

/** The approved call ran, once, with the approved args. */
export interface ExecutedOutcome<A, R> {
  status: 'executed';
  request_id: string;
  /** The args it ran with (a reviewer's modification when `modified`). */
  args: A;
  result: R;
  decided_by: string;
  modified: boolean;
}
/** The recheck found that the approval no longer holds: a policy block, nothing ran. */
export interface InvalidatedOutcome {
  status: 'invalidated';
  request_id: string;
  reason: string;
}

/** What a gated call resolves with: it ran (`executed`) or a typed refusal, nothing ran. */
export type GatedOutcome<A, R> =
  ExecutedOutcome<A, R> | DeniedOutcome | ExpiredOutcome | CancelledOutcome | InvalidatedOutcome;

/**
 * Wraps one of your activities (a stub from `proxyActivities`) so that calling it opens
 * an approval gate first. On approval (and a passing `spec.recheck`), the activity runs
 * once with the approved args and `{ idempotency_key: request_id, … }` as its second
 * argument; its own failure propagates as usual (an execution failure). A denial,
 * expiry, cancellation or failed recheck resolves as a refusal and the activity never runs.
 *
 * @example
 * const refund = withApproval(acts.refund, {
 *   request: (a) => ({ action: 'refund.create', target: `order/${a.order_id}`, summary: `Refund ${a.cents} cents`, ttl: '1h' }),
 *   recheck: 'refundStillValid',
 * });
 * const r = await refund({ order_id: 'A1', cents: 1200 }); // r.status: 'executed' | 'denied' | …
 */
export function withApproval<A extends Record<string, unknown>, R>(
  activity: (args: A, call: GatedCall) => Promise<R>,
  spec: ApprovalSpec<A>,
): (args: A) => Promise<GatedOutcome<A, R>> {
  return async (args) => {
    const options = typeof spec.options === 'function' ? spec.options(args) : (spec.options ?? {});
    const gate = await openGate(
      { ...spec.request(args), args },
      options,
      spec.recheck ? { activity: spec.recheck, taskQueue: spec.recheckTaskQueue } : undefined,
    );
    if (!('reused' in gate) && gate.status === 'invalidated')
      return {
        status: 'invalidated',
        request_id: gate.request_id,
        reason: gate.status_reason ?? 'the approval no longer holds',
      };
    const outcome = outcomeOf(gate);
    if (outcome.status !== 'approved') return outcome;
    const approved = outcome.args as A; // the request's args, or a reviewer's modification of them
    const result = await activity(approved, {
      request_id: outcome.request_id,
      idempotency_key: outcome.request_id,
      approvers: outcome.approvers,
      modified: outcome.modified,
    });
    return {
      status: 'executed',
      request_id: outcome.request_id,
      args: approved,
      result,
      decided_by: outcome.decided_by,
      modified: outcome.modified,
    };
  };
}

/** The args an activity is called with (its first parameter). */
type ArgsOf<F> = F extends (args: infer A, ...rest: never[]) => Promise<unknown> ? A : never;

/** One of your activities as `gatedActivities` returns it: called with its args, resolving with the gate's outcome. */
export type GatedActivity<F> = F extends (args: infer A, call: GatedCall) => Promise<infer R>
  ? A extends Record<string, unknown>
    ? (args: A) => Promise<GatedOutcome<A, R>>
    : never
  : never;

/**
 * `withApproval` for several activities at once: `activities` is your `proxyActivities`
 * stub, `specs` names the ones that need a person, each with its `ApprovalSpec`. Returns
 * those activities, gated; the others stay ungated on the stub.
 *
 * @example
 * const gated = gatedActivities(acts, {
 *   refund: { request: (a) => ({ action: 'refund.create', target: `order/${a.order_id}`, summary: `Refund ${a.cents} cents`, ttl: '1h' }) },
 *   voidInvoice: { request: (a) => ({ action: 'invoice.void', target: `invoice/${a.invoice_id}`, summary: 'Void the invoice', ttl: '1h' }) },
 * });
 * const r = await gated.refund({ order_id: 'A1', cents: 1200 }); // r.status: 'executed' | 'denied' | …
 */
export function gatedActivities<T extends object, S extends { [K in keyof T]?: ApprovalSpec<ArgsOf<T[K]>> }>(
  activities: T,
  specs: S,
): { [K in keyof S & keyof T]: GatedActivity<T[K]> } {
  const gated: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs) as [string, ApprovalSpec<Record<string, unknown>> | undefined][]) {
    if (!spec) continue;
    const activity: unknown = (activities as Record<string, unknown>)[name];
    if (typeof activity !== 'function') throw new TypeError(`gatedActivities: ${name} is not an activity of the stub`);
    gated[name] = withApproval(activity as (args: Record<string, unknown>, call: GatedCall) => Promise<unknown>, spec);
  }
  return gated as { [K in keyof S & keyof T]: GatedActivity<T[K]> };
}
