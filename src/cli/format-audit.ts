import { AuditEvent, verifyChain } from '../common/audit';
import type { Json } from './http';
import { renderTable } from './table';

/** The events a `GET /v1/approvals/{id}/audit` answer holds: a bare array or `{ events: [...] }`. */
export function auditEvents(body: unknown): Json[] {
  if (Array.isArray(body)) return body as Json[];
  const b = (body ?? {}) as Json;
  const list = b.events ?? b.items ?? b.audit;
  return Array.isArray(list) ? (list as Json[]) : [];
}

/** The table `gate audit` prints: seq, time, event, actor, note. */
export function formatAuditTable(events: readonly Json[]): string {
  if (events.length === 0) return 'no audit events';
  const rows = events.map((e) => [
    String(e.seq ?? ''),
    String(e.timestamp ?? ''),
    String(e.event_type ?? ''),
    `${String(e.actor_type ?? '')}:${String(e.actor_id ?? '')}`,
    e.note === null || e.note === undefined ? '' : String(e.note),
  ]);
  return renderTable(['SEQ', 'TIME', 'EVENT', 'ACTOR', 'NOTE'], rows, { 4: 80 });
}

/** Outcome of checking a trail locally. */
export type AuditVerdict = { ok: true; count: number } | { ok: false; index: number; reason: string };

/**
 * Recomputes the hash chain of `events` on this machine (the server is not trusted to
 * say it is intact) and checks every event belongs to `requestId`. Events are reduced to
 * the hashed fields first, so extra fields the API adds do not count as tampering.
 */
export function verifyAudit(requestId: string, events: readonly Json[]): AuditVerdict {
  const parsed: AuditEvent[] = [];
  for (let i = 0; i < events.length; i++) {
    const r = AuditEvent.safeParse(events[i]);
    if (!r.success)
      return {
        ok: false,
        index: i,
        reason: `event ${i} is malformed: ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`,
      };
    if (r.data.request_id !== requestId)
      return {
        ok: false,
        index: i,
        reason: `event ${r.data.event_id} belongs to ${r.data.request_id}, not ${requestId}`,
      };
    parsed.push(r.data);
  }
  if (parsed.length === 0)
    return { ok: false, index: 0, reason: 'the trail is empty: every request has at least its requested event' };
  return verifyChain(parsed);
}

/** One line for a verdict: `OK …` or `BROKEN at seq i: …`. */
export function formatVerdict(v: AuditVerdict): string {
  return v.ok ? `OK: ${v.count} events, hash chain intact` : `BROKEN at seq ${v.index}: ${v.reason}`;
}
