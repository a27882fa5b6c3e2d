import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { CancelMessage, ConsumeMessage, DecisionMessage, DecisionResult } from '../../common/decision';
import {
  applyDecision,
  applyEvent,
  consumeApproval,
  decisionKey,
  initialGateState,
  isInFlight,
  previousDecision,
  refuseCancel,
  refuseConsume,
  refuseDecision,
  type AuditSpec,
  type GateInput,
  type GateState,
  type Modification,
} from '../../common/gate-state';
import { requestedSpec } from '../../common/requested-event';
import { AuditTrail } from './audit-trail';
import { continueGate, historyFull } from './continuation';
import { awaitConsume, awaitDecision, systemEnd, validateModification } from './phases';
import { Deadlines } from './deadlines';
import { runTool } from '../agent-run/tool-run';
import { handOver } from './hand-over';
import {
  cancelSignal,
  cancelUpdate,
  consumeUpdate,
  decideSignal,
  decideUpdate,
  GATE_ACTION,
  GATE_AGENT,
  GATE_RUN_ID,
  GATE_STATUS,
  GATE_TARGET,
  GATE_TENANT,
  getAuditQuery,
  getGateQuery,
  recordRefusalSignal,
  type CallerEvents,
  type CallerWrites,
  type ConsumeResult,
} from './messages';
import { refusalFailure } from '../internal/failures';
import { applyPolicyAtCreation } from './policy-at-creation';
import { countDecision, observeGateEvent } from './metrics';
import { upsertChanged } from './search-attribute-sync';
import { argsFinalizedSignal } from '../agent-run/messages';
import { Notices } from './notices';
import type { Escalation } from './escalate';
import { GrantIssues } from './grant-issue';
import { DEFAULT_TENANT } from '../../common/tenant';

/**
 * Patch id of gates whose clock never runs behind a durable timer that has fired: a timer's
 * continuation run with the clock of the task before it (deadlines.ts) no longer arms the
 * next wait too long nor dates its events early. Asked when a timer fires, and at the start
 * by a gate on the escalation timeline (it arms its TTL's timer then).
 */
export const GATE_TIMER_CLOCK_PATCH = 'gate-timer-clock';
/**
 * Patch id of gates judged at creation by a version 2 rule file: `policy.shadow` events
 * after `approval.requested`, and a gate decided by `policy:<rule>` or `grant:<id>` that
 * starts approved or denied. Gates of 0.1.0 carry neither field and never ask.
 */
export const POLICY_AT_CREATION_PATCH = 'policy-at-creation';
/**
 * Patch id of gates that tell reviewers: notices at creation and at each level of an
 * escalation chain, the chain's levels on durable timers, and the ended notices. Asked
 * only by gates whose evidence names a chain or notification targets (0.1.0 has neither).
 */
export const GATE_NOTICES_PATCH = 'gate-notices';
/** Refusals a gate records one by one (by signal or reported by the API); past it they are only counted. */
const MAX_RECORDED_REFUSALS = 100;
/**
 * One approval request, from `requested` to a terminal state. The workflow id is the
 * request id. Decisions arrive by signal or update and are applied once per decision
 * id; the TTL is a durable timer and fails closed. With the `tool` executor the gate
 * re-checks the snapshot and runs the tool itself, keyed by the request id.
 */
export async function approvalGateWorkflow(input: GateInput): Promise<GateState> {
  const carried = input.continued; // set when the previous execution's history was full
  // Timers that are never cancelled, and the gate's clock: see deadlines.ts.
  const deadlines = new Deadlines(() => patched(GATE_TIMER_CLOCK_PATCH));
  const now = (): string => new Date(deadlines.now()).toISOString();
  const state = carried ? carried.state : initialGateState(input, now());
  // Webhook bodies name the tenant of a gate that has one, so one receiver can serve several tenants.
  const tenant = workflowInfo().typedSearchAttributes.get(GATE_TENANT);
  const trail = new AuditTrail(
    state.request_id,
    state.payload_sha256,
    () => ({
      request_id: state.request_id,
      status: state.status,
      action: state.payload.action,
      target: state.payload.target,
      agent_id: state.payload.agent_id,
      summary: state.payload.summary,
      payload_sha256: state.payload_sha256,
      expires_at: state.expires_at,
      ...(state.run_id ? { run_id: state.run_id, call_id: state.call_id } : {}),
      ...(tenant ? { tenant } : {}),
    }),
    undefined,
    (e) => observeGateEvent(state, e), // lifecycle metrics, as the trail records each event
    () => deadlines.now(),
  );
  const grants = new GrantIssues(tenant ?? DEFAULT_TENANT);

  const publish = (): void => {
    upsertChanged([{ key: GATE_STATUS, value: state.status }]);
    setCurrentDetails(
      `**${state.status}** · ${state.payload.action} on \`${state.payload.target}\`\n\n${state.payload.summary}\n\n` +
        `approvals ${state.votes.length}/${state.approvals_required} · expires ${state.expires_at}` +
        (state.status_reason ? `\n\nreason: ${state.status_reason}` : ''),
    );
  };

  /** Appends an update's events; those the caller writes (CallerWrites) are returned for it to write. */
  const appendAll = (specs: AuditSpec[], w: CallerWrites | undefined): CallerEvents => {
    if (w?.audit_events !== 'caller') {
      specs.forEach((e) => trail.append(e));
      return {};
    }
    const recorded = w.recorded === true;
    const events = specs.map((e) => trail.appendForCaller(e, recorded));
    return events.length > 0 ? { audit_events: events } : {};
  };

  const decide = async (d: DecisionMessage, w?: CallerWrites): Promise<DecisionResult & CallerEvents> => {
    // Any service may signal: a message that is not even an object is refused, never a task failure.
    if (d === null || typeof d !== 'object')
      throw refusalFailure({ type: 'InvalidInput', message: 'a decision must be a JSON object' });
    // The same decision already being applied (a signal and an update for one click): wait for it.
    if (isInFlight(state, d)) await condition(() => !isInFlight(state, d));
    const prev = previousDecision(state, d);
    if (prev && 'refusal' in prev) throw refusalFailure(prev.refusal);
    if (prev) return { ...prev.result, applied: false };
    let refusal = refuseDecision(state, d);
    if (refusal) throw refusalFailure(refusal);
    let mod: Modification | undefined;
    if (d.decision === 'modify') {
      state.busy = true; // other decisions are refused (Busy) while the domain validates
      state.busy_key = decisionKey(d);
      try {
        mod = await validateModification(state, input, d);
      } finally {
        state.busy = false;
        state.busy_key = undefined;
      }
      refusal = refuseDecision(state, d); // the TTL may have fired meanwhile
      if (refusal) throw refusalFailure(refusal);
    }
    const { result, events } = applyDecision(state, d, now(), mod);
    if (result.grant) grants.issue(result.grant); // also when the decision came by signal (patch gate-stores-grant)
    countDecision(state, d.decision);
    const written = appendAll(events, w);
    publish();
    if (mod && input.run_id && input.call_id) {
      // The run rewrites the recorded call with the executed values before the tool runs.
      await getExternalWorkflowHandle(input.run_id)
        .signal(argsFinalizedSignal, {
          call_id: input.call_id,
          request_id: state.request_id,
          args: mod.call_args ?? mod.args,
          executed_values: mod.executed_values,
        })
        .catch(() => undefined); // a run that is gone has no conversation to fix
    }
    return { ...result, ...written }; // a copy: the result remembered per decision id stays without events
  };

  // One cap for every refusal the gate records, so a flood of bad messages cannot grow its history without bound.
  let refusalsRecorded = carried?.refusals_recorded ?? 0;
  /** False once the cap is reached: the refusal is counted in the state instead of being audited. */
  const underCap = (): boolean => {
    if (++refusalsRecorded <= MAX_RECORDED_REFUSALS) return true;
    state.refusals_unrecorded = (state.refusals_unrecorded ?? 0) + 1;
    return false;
  };

  /** Refusals that reached the gate by signal have no caller to tell: audit them visibly. */
  const auditRefusal = (d: Partial<DecisionMessage> | undefined, err: unknown): void => {
    if (!underCap()) return;
    const message = err instanceof Error ? err.message : String(err);
    const type = err instanceof ApplicationFailure ? err.type : 'Error';
    trail.append({
      event_type: 'decision.refused',
      actor_type: 'human',
      actor_id: typeof d?.reviewer_id === 'string' ? d.reviewer_id : 'unknown',
      note: message,
      data: { decision_id: d?.decision_id ?? null, decision: d?.decision ?? null, refusal: type },
    });
  };

  const cancel = (m: CancelMessage): GateState => {
    const r = refuseCancel(state, m?.actor_id, m?.actor_type);
    if (r) throw refusalFailure(r);
    applyEvent(state, 'cancel', now(), m.reason ?? 'cancelled by the requester');
    trail.append({ event_type: 'approval.cancelled', actor_type: m.actor_type, actor_id: m.actor_id, note: m.reason });
    publish();
    return state;
  };

  if (carried) {
    trail.resume(carried); // search attributes and memo came with the continuation
  } else {
    // `requested` comes first in the trail: the SDK delivers a decision that arrived with the
    // start as soon as its handler is registered, which is below and before the first await.
    upsertChanged([
      { key: GATE_ACTION, value: state.payload.action },
      { key: GATE_AGENT, value: state.payload.agent_id },
      { key: GATE_TARGET, value: state.payload.target },
      ...(state.run_id ? [{ key: GATE_RUN_ID, value: state.run_id }] : []),
    ]);
    const requested = requestedSpec(state);
    // A creator that wrote this event to the store itself (GateClient with an audit store) saves the gate a store write.
    if (input.requested_event)
      trail.appendStored(requested, input.requested_event, input.requested_event.recorded === true);
    else trail.append(requested); // Decided at creation by the rule file or a standing grant, and the shadow rules' verdicts:
    // only gates whose creator judged them so ask for the patch (0.1.0 histories never do).
    if ((input.policy_decision || input.policy_shadow?.length) && patched(POLICY_AT_CREATION_PATCH))
      applyPolicyAtCreation(state, input, trail, now());
  }
  const notices = tellsReviewers(state) && patched(GATE_NOTICES_PATCH) ? new Notices(state, trail, tenant) : undefined;
  if (notices && carried) notices.resume(carried.notices);
  else if (notices && state.status === 'requested') notices.tell('requested', state.payload.notify ?? []); // level 0
  const escalation: Escalation | undefined = notices
    ? { notices, ...(state.payload.escalation ? { chain: state.payload.escalation } : {}) }
    : undefined;
  publish();

  // Handlers are registered before the first await, so a decision sent right after creation is never lost.
  setHandler(getGateQuery, () => state);
  setHandler(getAuditQuery, () => trail.events);
  setHandler(decideUpdate, decide, {
    // The second argument (CallerWrites) does not change what is refused.
    validator: (d: DecisionMessage, _w?: CallerWrites): void => {
      if (d !== null && typeof d === 'object') {
        if (isInFlight(state, d)) return; // answered with the first one's result
        const prev = previousDecision(state, d);
        if (prev && 'refusal' in prev) throw refusalFailure(prev.refusal);
        if (prev) return;
      }
      const r = refuseDecision(state, d);
      if (r) throw refusalFailure(r);
    },
  });
  setHandler(decideSignal, async (d: DecisionMessage) => {
    try {
      await decide(d);
    } catch (err) {
      if (err instanceof ApplicationFailure || err instanceof ActivityFailure) auditRefusal(d, err);
      else throw err;
    }
  });
  setHandler(recordRefusalSignal, (r) => {
    if (!underCap()) return; // bounded: a flood of bad decisions must not bloat history
    trail.append({
      event_type: 'decision.refused',
      actor_type: 'human',
      actor_id: String(r?.reviewer_id ?? 'unknown').slice(0, 200),
      note: String(r?.message ?? '').slice(0, 2000),
      data: {
        decision_id: r?.decision_id ?? null,
        decision: r?.decision ?? null,
        refusal: r?.refusal ?? null,
        via: 'update',
      },
    });
  });
  setHandler(
    consumeUpdate,
    (m: ConsumeMessage, w?: CallerWrites): ConsumeResult & CallerEvents => {
      const r = refuseConsume(state, m?.consumer_id);
      if (r) throw refusalFailure(r);
      const consumedAt = now();
      consumeApproval(state, m.consumer_id, consumedAt, `consumed by ${m.consumer_id}`);
      const written = appendAll(
        [
          {
            event_type: 'approval.consumed',
            actor_type: 'agent',
            actor_id: m.consumer_id,
            data: { args_sha256: state.final_args_sha256 },
          },
        ],
        w,
      );
      publish();
      return {
        request_id: state.request_id,
        args: state.final_args,
        args_sha256: state.final_args_sha256,
        payload_sha256: state.payload_sha256,
        consumed_at: consumedAt,
        ...written,
      };
    },
    {
      validator: (m: ConsumeMessage, _w?: CallerWrites): void => {
        const r = refuseConsume(state, m?.consumer_id);
        if (r) throw refusalFailure(r);
      },
    },
  );
  setHandler(cancelUpdate, cancel, {
    validator: (m: CancelMessage): void => {
      const r = refuseCancel(state, m?.actor_id, m?.actor_type);
      if (r) throw refusalFailure(r);
    },
  });
  setHandler(cancelSignal, (m: CancelMessage) => {
    try {
      cancel(m);
    } catch (err) {
      if (!(err instanceof ApplicationFailure)) throw err;
      if (!underCap()) return;
      trail.append({
        event_type: 'decision.refused',
        actor_type: m?.actor_type ?? 'agent',
        actor_id: m?.actor_id ?? 'unknown',
        note: err.message,
        data: { refusal: err.type, action: 'cancel' },
      });
    }
  });

  const full = (): boolean => historyFull(input);
  try {
    // A continued execution may start decided (a decision arrived while the last one handed over).
    if (!carried || state.status === 'requested') await awaitDecision(state, input, trail, full, deadlines, escalation);
    if (full() && state.status === 'requested') {
      await grants.settled();
      await continueGate(input, state, trail, refusalsRecorded, notices?.handOver());
    }
    publish();
    if (state.status === 'approved') {
      if (state.executor === 'external') {
        await awaitConsume(state, input, trail, full, deadlines);
        if (full() && state.status === 'approved') {
          await grants.settled();
          await continueGate(input, state, trail, refusalsRecorded, notices?.handOver());
        }
      } else if (state.executor === 'workflow')
        await CancellationScope.nonCancellable(() => handOver(state, input, trail));
      else await CancellationScope.nonCancellable(() => runTool(state, input, trail)); // once approved, the run's cancel does not stop it
      publish();
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled from outside (the owning run was cancelled): a pending request ends cancelled.
    if (state.status === 'requested') systemEnd(state, trail, 'cancel', 'the owning run was cancelled');
    else if (state.status === 'approved') systemEnd(state, trail, 'expire', 'withdrawn before it was consumed');
    publish();
  }
  await CancellationScope.nonCancellable(async () => {
    await condition(allHandlersFinished);
    await grants.settled();
    // A workflow waits for the result of tool and workflow gates: their ended notices must not hold it.
    if (notices) await notices.finish(state.executor !== 'external');
    await trail.flush();
  });
  return state;
}

/** Whether the gate's evidence names anyone to tell: a chain, or targets at creation. */
function tellsReviewers(state: GateState): boolean {
  return state.payload.escalation !== undefined || (state.payload.notify?.length ?? 0) > 0;
}
