import { randomUUID } from 'node:crypto';
import { chainEvent, type AuditEvent } from '../common/audit';
import type { Judgement, PolicyRequest } from '../policy/judge';
import type { RecordedEvaluation } from '../policy/replay';
import type { PolicyEffect } from '../policy/policy-v2';
import type { AuditStore } from './audit-store';

/** The chain of one request's judgement: `policy:<request id>`. */
export const evaluationTrailId = (requestId: string): string => `policy:${requestId}`;
/** The chain of one standing grant: `grant:<grant id>`. */
export const grantTrailId = (grantId: string): string => `grant:${grantId}`;

/**
 * Records what the rule file made of a request (`policy.evaluated`, in the request's own
 * `policy:<id>` chain): the request as the conditions saw it and the outcome, so `gate
 * policy replay` can judge it again under another file. One per request: a retried create
 * writes the same event id, which the store keeps once.
 */
export async function recordEvaluation(
  audit: AuditStore,
  requestId: string,
  request: PolicyRequest,
  j: Judgement,
  extra: { decided_by?: string; via: 'api' | 'workflow' | 'run' },
): Promise<void> {
  const event = chainEvent(undefined, {
    event_id: `pev_${requestId}`,
    request_id: evaluationTrailId(requestId),
    event_type: 'policy.evaluated',
    actor_type: 'system',
    actor_id: 'approval-gate',
    payload_sha256: null,
    note: j.reason ?? null,
    timestamp: new Date().toISOString(),
    data: {
      gate_request_id: requestId,
      request,
      effect: j.effect,
      rule_id: j.rule_id,
      decided_by: extra.decided_by ?? (j.effect === 'require' ? null : j.decided_by),
      policy_sha256: j.policy_sha256,
      version: j.version,
      via: extra.via,
      ...(j.shadow.length
        ? { shadow: j.shadow.map((s) => ({ rule_id: s.rule_id, effect: s.effect, mode: s.mode })) }
        : {}),
    },
  });
  await audit.append(event);
}

/** The judgements recorded since `since` (ISO time), as `replayPolicy` reads them. */
export async function readEvaluations(audit: AuditStore, since: string): Promise<RecordedEvaluation[]> {
  const events = await audit.listByType('policy.evaluated', since);
  return events.flatMap((e) => {
    const d = e.data as {
      gate_request_id?: string;
      request?: PolicyRequest;
      effect?: PolicyEffect;
      rule_id?: string | null;
    };
    if (!d.request || !d.effect) return [];
    return [
      {
        request_id: d.gate_request_id ?? e.request_id,
        at: e.timestamp,
        request: d.request,
        was: { effect: d.effect, rule_id: d.rule_id ?? null },
      },
    ];
  });
}

/**
 * Appends an event to a grant's own chain. Two writers at once can race for the next
 * position; the loser reads the chain again and retries, so no event is lost.
 */
export async function recordGrantEvent(
  audit: AuditStore,
  grantId: string,
  eventType: 'grant.issued' | 'grant.used' | 'grant.revoked',
  actor: { actor_type: AuditEvent['actor_type']; actor_id: string },
  data: Record<string, unknown>,
  note?: string,
): Promise<AuditEvent> {
  const trail = grantTrailId(grantId);
  for (let attempt = 0; ; attempt++) {
    const events = await audit.list(trail);
    const event = chainEvent(events[events.length - 1], {
      event_id: randomUUID(),
      request_id: trail,
      event_type: eventType,
      ...actor,
      payload_sha256: null,
      note: note ?? null,
      timestamp: new Date().toISOString(),
      data: { grant_id: grantId, ...data },
    });
    try {
      await audit.append(event);
      return event;
    } catch (err) {
      if (attempt >= 4 || !/unique|duplicate/i.test(String((err as Error).message))) throw err;
    }
  }
}
