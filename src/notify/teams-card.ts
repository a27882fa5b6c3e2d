// A notice as a Microsoft Teams message for an incoming webhook: one Adaptive Card whose
// only action is Action.OpenUrl to the reviewer page. Pure.
import type { NoticeFacts, NoticeKind } from '../common/notice';
import { noticeView, outcomeSentence } from './notice-view';

/** The body POSTed to a Teams incoming webhook. */
export interface TeamsMessage {
  type: 'message';
  attachments: { contentType: 'application/vnd.microsoft.card.adaptive'; content: Record<string, unknown> }[];
}

// Request text goes into TextRuns, which Teams shows as plain text (no Markdown), so no value
// can form a link or a mention; only trusted text (labels, times) goes into TextBlocks.
const run = (text: string, bold = false) => ({ type: 'TextRun', text, ...(bold ? { weight: 'Bolder' } : {}) });
const row = (label: string, value: string) => ({
  type: 'RichTextBlock',
  inlines: [run(`${label}: `, true), run(value)],
});

/** Adaptive Cards' date functions need an RFC 3339 time without fractions; each reader sees their own zone. */
const when = (iso: string) => `{{DATE(${iso}, SHORT)}} {{TIME(${iso})}}`;

/** The Teams message of a notice: every notice is a new card (incoming webhooks cannot edit one). */
export function teamsCard(kind: NoticeKind, facts: NoticeFacts, publicUrl: string): TeamsMessage {
  const v = noticeView(kind, facts, publicUrl);
  const body: Record<string, unknown>[] = [
    { type: 'TextBlock', text: v.title, size: 'Large', weight: 'Bolder', wrap: true },
    { type: 'RichTextBlock', inlines: [run(v.summary, true)] },
    ...v.fields.map((f) => row(f.label, f.value)),
    {
      type: 'TextBlock',
      text: `**Expires:** ${when(v.expires.iso)}${v.timeLeft ? ` (${v.timeLeft})` : ''}`,
      wrap: true,
    },
  ];
  if (v.escalation) body.push({ type: 'RichTextBlock', inlines: [run(v.escalation)] });
  if (v.outcome) {
    body.push({ type: 'RichTextBlock', inlines: [run(outcomeSentence(v.outcome), true)] });
    body.push({ type: 'TextBlock', text: `**At:** ${when(v.outcome.at.iso)}`, wrap: true });
    if (v.outcome.reason) body.push(row('Reason', v.outcome.reason));
  }
  body.push(row('Request', v.requestId));
  if (kind !== 'ended')
    body.push({
      type: 'TextBlock',
      text: 'This card cannot approve or reject: decide on the reviewer page, where you sign in.',
      wrap: true,
      isSubtle: true,
      size: 'Small',
    });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          // Action.OpenUrl only: no Action.Submit or Action.Execute, so the card can decide nothing.
          actions: [
            {
              type: 'Action.OpenUrl',
              title: kind === 'ended' ? 'See the outcome on the reviewer page' : 'Open the reviewer page',
              url: v.link,
            },
          ],
          msteams: { width: 'Full' },
        },
      },
    ],
  };
}
