// A notice as an email: subject, a text part and an HTML part with the same facts and one
// link, and the Message-ID that threads a request's mails. Pure.
import type { NoticeFacts, NoticeKind } from '../common/notice';
import { noticeView, oneLine, outcomeSentence, type NoticeView } from './notice-view';

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** "2026-12-07 06:30 UTC": the absolute time a mail shows (mail has no per-reader time token). */
function utc(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

function subjectOf(v: NoticeView, facts: NoticeFacts): string {
  const head =
    v.kind === 'requested'
      ? 'Approval requested'
      : v.kind === 'escalated'
        ? `Escalated (level ${facts.level ?? '?'})`
        : v.title;
  // oneLine removes line breaks: no value can add a header through the subject.
  return oneLine(`${head}: ${facts.action} on ${facts.target}`, 200);
}

function lines(v: NoticeView): [string, string][] {
  const rows: [string, string][] = [
    ['Summary', v.summary],
    ...v.fields.map((f): [string, string] => [f.label, f.value]),
  ];
  rows.push(['Expires', `${utc(v.expires.iso)}${v.timeLeft ? ` (${v.timeLeft})` : ''}`]);
  if (v.escalation) rows.push(['Escalation', v.escalation]);
  if (v.outcome) {
    rows.push(['Outcome', `${outcomeSentence(v.outcome)} at ${utc(v.outcome.at.iso)}`]);
    if (v.outcome.reason) rows.push(['Reason', v.outcome.reason]);
  }
  rows.push(['Request', v.requestId]);
  return rows;
}

const LINK_TEXT = { open: 'Open the reviewer page', ended: 'See the outcome and audit trail on the reviewer page' };
const NO_DECIDE =
  'This message cannot approve or reject. Decide on the reviewer page, where you sign in; opening the link changes nothing.';

/** The mail of a notice. Every value is escaped in the HTML part; the one link is the reviewer page's. */
export function emailMessage(kind: NoticeKind, facts: NoticeFacts, publicUrl: string): EmailMessage {
  const v = noticeView(kind, facts, publicUrl);
  const rows = lines(v);
  const width = Math.max(...rows.map(([k]) => k.length));
  const linkText = kind === 'ended' ? LINK_TEXT.ended : LINK_TEXT.open;
  const text = [
    v.title,
    '',
    ...rows.map(([k, val]) => `${`${k}:`.padEnd(width + 2)}${val}`),
    '',
    `${linkText}: ${v.link}`,
    '',
    ...(kind === 'ended' ? [] : [NO_DECIDE]),
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<h2>${escapeHtml(v.title)}</h2>`,
    '<table cellpadding="4" style="border-collapse:collapse">',
    ...rows.map(
      ([k, val]) =>
        `<tr><th align="left" valign="top">${escapeHtml(k)}</th><td>${k === 'Payload' ? `<code>${escapeHtml(val)}</code>` : escapeHtml(val)}</td></tr>`,
    ),
    '</table>',
    `<p><a href="${escapeHtml(v.link)}">${escapeHtml(linkText)}</a></p>`,
    ...(kind === 'ended' ? [] : [`<p style="color:#555">${escapeHtml(NO_DECIDE)}</p>`]),
    '</body></html>',
  ].join('\n');
  return { subject: subjectOf(v, facts), text, html };
}

/** A request id as the left part of a msg-id (RFC 5322 dot-atom): percent-encoded, injective. */
function idAtom(requestId: string): string {
  return encodeURIComponent(requestId).replace(/[().'*!~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The host of GATE_PUBLIC_URL, the right part of every Message-ID. */
function idHost(publicUrl: string): string {
  try {
    return new URL(publicUrl).hostname.replace(/^\[|\]$/g, '') || 'approval-gate.invalid';
  } catch {
    return 'approval-gate.invalid';
  }
}

/** The first (requested) mail's Message-ID: later mails of the request reply to it. */
export function rootMessageId(requestId: string, publicUrl: string): string {
  return `<${idAtom(requestId)}@${idHost(publicUrl)}>`;
}

/**
 * A notice mail's Message-ID, the same on every retry, so a mail sent twice (a retry after
 * a timeout) can be recognised as one: `<request>@host`, `<request>.escalated.<level>.<loop>@host`,
 * `<request>.ended@host`.
 */
export function emailMessageId(
  kind: NoticeKind,
  facts: Pick<NoticeFacts, 'request_id' | 'level' | 'loop'>,
  publicUrl: string,
): string {
  if (kind === 'requested') return rootMessageId(facts.request_id, publicUrl);
  const suffix = kind === 'escalated' ? `escalated.${facts.level ?? 0}.${facts.loop ?? 0}` : 'ended';
  return `<${idAtom(facts.request_id)}.${suffix}@${idHost(publicUrl)}>`;
}
