// What every notification message shows, as plain strings before any channel's escaping
// (DESIGN.md section 12). Pure: no Node modules, no clock (time left counts from sent_at).
import { reviewUrl, type NoticeFacts, type NoticeKind } from '../common/notice';

/** One labelled fact; `value` is untrusted text (it comes from the request) and each channel escapes it. */
export interface NoticeField {
  label: string;
  value: string;
  /** Shown in a code style (hashes). */
  code?: boolean;
}

/** The message of a notice, channel-neutral. */
export interface NoticeView {
  kind: NoticeKind;
  /** Trusted headline: "Approval requested", "Escalated: level 2", "Approved", ... */
  title: string;
  /** Untrusted: the request's summary. */
  summary: string;
  fields: NoticeField[];
  /** The expiry as ISO (seconds precision, UTC) and as Unix seconds. */
  expires: { iso: string; unix: number };
  /** "in 2 h 30 min", or "expired"; none on an ended notice. */
  timeLeft?: string;
  /** Escalated notices: "Level 2, pass 1. Roles that may now decide: cfo". */
  escalation?: string;
  /** Ended notices: how it ended; `by` and `reason` are untrusted. */
  outcome?: { status: string; by?: string; at: { iso: string; unix: number }; reason?: string };
  requestId: string;
  /** The reviewer page's link: the only link any message carries. */
  link: string;
}

/** Longest text a message shows of one untrusted value; the reviewer page shows all of it. */
const MAX_VALUE = 200;

/** One line, no control characters, at most `max` characters: so no value can forge headers or layout. */
export function oneLine(text: string, max = MAX_VALUE): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A lifecycle status as a headline word: `denied` -> "Denied". */
export function statusWord(status: string): string {
  const s = oneLine(status, 40);
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A span of milliseconds as a person reads it: "2 d 3 h", "2 h 30 min", "45 min", "under a minute". */
export function spanText(ms: number): string {
  if (ms <= 0) return 'expired';
  const min = Math.floor(ms / 60_000);
  if (min < 1) return 'under a minute';
  const d = Math.floor(min / 1440);
  const h = Math.floor((min % 1440) / 60);
  const m = min % 60;
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  return `${m} min`;
}

/** Time left at `sentAt` until `expiresAt`: "in 2 h 30 min", or "expired". */
export function timeLeft(sentAt: string, expiresAt: string): string {
  const ms = Date.parse(expiresAt) - Date.parse(sentAt);
  if (Number.isNaN(ms)) return 'unknown';
  const span = spanText(ms);
  return span === 'expired' ? span : `in ${span}`;
}

function instant(iso: string): { iso: string; unix: number } {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return { iso: oneLine(iso, 40), unix: 0 };
  return { iso: new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z'), unix: Math.floor(t / 1000) };
}

/** The blast radius as `key value` pairs ("cents 120000 · rows 3"); at most 8 entries. */
export function blastRadiusText(blast: unknown): string | undefined {
  if (blast === undefined || blast === null) return undefined;
  if (typeof blast !== 'object' || Array.isArray(blast)) return oneLine(JSON.stringify(blast) ?? '');
  const entries = Object.entries(blast as Record<string, unknown>);
  if (entries.length === 0) return undefined;
  const shown = entries
    .slice(0, 8)
    .map(
      ([k, v]) => `${oneLine(k, 64)} ${typeof v === 'string' ? oneLine(v, 64) : oneLine(JSON.stringify(v) ?? '', 64)}`,
    );
  return oneLine(shown.join(' · ') + (entries.length > 8 ? ` · and ${entries.length - 8} more` : ''), 400);
}

function titleOf(kind: NoticeKind, facts: NoticeFacts): string {
  if (kind === 'escalated') return `Escalated: level ${facts.level ?? '?'}`;
  if (kind === 'ended') return statusWord(facts.outcome?.status ?? facts.status);
  return 'Approval requested';
}

function escalationLine(facts: NoticeFacts): string {
  const loop = facts.loop ?? 0;
  const parts = [`Level ${facts.level ?? '?'}${loop > 0 ? `, repeat ${loop}` : ''}.`];
  const roles = (facts.roles_added ?? []).map((r) => oneLine(r, 64)).filter(Boolean);
  if (roles.length > 0) parts.push(`Roles that may now decide: ${roles.join(', ')}.`);
  return parts.join(' ');
}

/**
 * The channel-neutral message of one notice. It shows the request's facts only: never its
 * `args` (they are on the reviewer page, behind a sign-in), so a message cannot leak them.
 */
export function noticeView(kind: NoticeKind, facts: NoticeFacts, publicUrl: string): NoticeView {
  const blast = blastRadiusText(facts.blast_radius);
  const fields: NoticeField[] = [
    { label: 'Action', value: oneLine(facts.action) },
    { label: 'Target', value: oneLine(facts.target) },
    { label: 'Agent', value: oneLine(facts.agent_id) },
    ...(blast ? [{ label: 'Blast radius', value: blast }] : []),
    ...(facts.tenant ? [{ label: 'Tenant', value: oneLine(facts.tenant, 64) }] : []),
    { label: 'Approvals', value: `${facts.approvals} of ${facts.approvals_required}` },
    { label: 'Payload', value: oneLine(facts.payload_sha256, 64).slice(0, 12), code: true },
  ];
  const o = facts.outcome;
  return {
    kind,
    title: titleOf(kind, facts),
    summary: oneLine(facts.summary, 150),
    fields,
    expires: instant(facts.expires_at),
    timeLeft: kind === 'ended' ? undefined : timeLeft(facts.sent_at, facts.expires_at),
    escalation: kind === 'escalated' ? escalationLine(facts) : undefined,
    outcome:
      kind === 'ended' && o
        ? {
            status: statusWord(o.status),
            by: o.by ? oneLine(o.by, 100) : undefined,
            at: instant(o.at),
            reason: o.reason ? oneLine(o.reason, 300) : undefined,
          }
        : undefined,
    requestId: oneLine(facts.request_id, 100),
    link: reviewUrl(publicUrl, facts.request_id),
  };
}

/** "Approved by alice" / "Expired": who ended the gate, as a sentence start. */
export function outcomeSentence(o: NonNullable<NoticeView['outcome']>): string {
  return o.by ? `${o.status} by ${o.by}` : o.status;
}
