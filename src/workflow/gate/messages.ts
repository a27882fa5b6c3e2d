import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { AuditEvent } from '../../common/audit';
import type { CancelMessage, ConsumeMessage, DecisionMessage, DecisionResult } from '../../common/decision';
import type { GateInput, GateState } from '../../common/gate-state';
import { gateMemo, gateUiText } from '../../common/gate-memo';
import { SEARCH_ATTRIBUTE_NAMES } from '../../common/search-attributes';

// Wire names are frozen: other services signal gates by these names.

/** A reviewer's decision from any service; refusals are audited as `decision.refused`. */
export const decideSignal = defineSignal<[DecisionMessage]>('decide');
/** A reviewer's decision with an answer: the result, or the refusal from the validator. */
export const decideUpdate = defineUpdate<DecisionResult & CallerEvents, [DecisionMessage, CallerWrites?]>('decide');
/** The API reports a decision its update refused, so the refusal is in the audit trail too. */
export const recordRefusalSignal = defineSignal<[RefusalRecord]>('recordRefusal');
/** The external executor takes the approved args, exactly once. */
export const consumeUpdate = defineUpdate<ConsumeResult & CallerEvents, [ConsumeMessage, CallerWrites?]>('consume');
/** The requesting agent (or its run) withdraws a pending request. */
export const cancelUpdate = defineUpdate<GateState, [CancelMessage]>('cancel');
export const cancelSignal = defineSignal<[CancelMessage]>('cancel');
/** The gate's whole state. */
export const getGateQuery = defineQuery<GateState>('getGate');
/** The gate's hash-chained audit trail. */
export const getAuditQuery = defineQuery<AuditEvent[]>('getAudit');

/** A decision refused by the update validator, as the API saw it. */
export interface RefusalRecord {
  decision_id: string;
  reviewer_id: string;
  decision: string;
  refusal: string;
  message: string;
}

/**
 * The optional second argument of `decide` and `consume`: the caller writes the audit
 * events the update appends to the store itself (it has the store and no webhook
 * receivers are configured), so the gate schedules no store write for them now; they
 * ride along with the gate's next batch (an idempotent insert), at the latest when it
 * ends. A second argument, not a field of the message, so the message's schema stays
 * the one of DecisionMessage and ConsumeMessage.
 */
export interface CallerWrites {
  audit_events: 'caller';
  /**
   * The caller recorded an audit intent in its store before sending (GateClient with an
   * audit store): if it fails before writing the events, whoever recovers the store's
   * stale intents reads them from the gate's history and writes them. The gate then does
   * not send these events again when it ends, which saves every lifecycle a store
   * activity and the workflow task it wakes.
   */
  recorded?: true;
}
export const CALLER_WRITES: CallerWrites = { audit_events: 'caller' };
/** `CALLER_WRITES` from a caller that recorded its audit intent first. */
export const CALLER_WRITES_RECORDED: CallerWrites = { audit_events: 'caller', recorded: true };

/** The events an update appended, in its result when its caller writes them (CallerWrites). */
export interface CallerEvents {
  audit_events?: AuditEvent[];
}

/** What `consume` returns: the args to execute, which may be a reviewer's modification. */
export interface ConsumeResult {
  request_id: string;
  args: Record<string, unknown>;
  args_sha256: string;
  payload_sha256: string;
  consumed_at: string;
}

export const GATE_STATUS = defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.status, SearchAttributeType.KEYWORD);
export const GATE_ACTION = defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.action, SearchAttributeType.KEYWORD);
export const GATE_AGENT = defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.agent, SearchAttributeType.KEYWORD);
export const GATE_TARGET = defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.target, SearchAttributeType.KEYWORD);
export const GATE_RUN_ID = defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.runId, SearchAttributeType.KEYWORD);
export const GATE_RUN_STATUS = defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.runStatus, SearchAttributeType.KEYWORD);
export const GATE_TENANT = defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.tenant, SearchAttributeType.KEYWORD);

/**
 * What every gate starts with, whoever starts it (the API's client, a workflow's
 * `requireApproval`, an agent run's tool call): `GateStatus` requested, its action, agent
 * and target, the run that opened it and its tenant when it has them, the memo listings
 * read, and the Web UI's summary and details.
 */
export function gateStartAttributes(input: GateInput, nonce: string, owner: { runId?: string; tenant?: string }) {
  const p = input.payload;
  return {
    typedSearchAttributes: [
      { key: GATE_STATUS, value: 'requested' },
      { key: GATE_ACTION, value: p.action },
      { key: GATE_AGENT, value: p.agent_id },
      { key: GATE_TARGET, value: p.target },
      ...(owner.runId !== undefined ? [{ key: GATE_RUN_ID, value: owner.runId }] : []),
      ...(owner.tenant !== undefined ? [{ key: GATE_TENANT, value: owner.tenant }] : []),
    ],
    memo: { ...gateMemo(input, nonce) },
    ...gateUiText(input),
  };
}
