// A notice as a Slack Block Kit message for chat.postMessage / chat.update. Pure.
import type { NoticeFacts, NoticeKind } from '../common/notice';
import { noticeView, outcomeSentence, type NoticeView } from './notice-view';

/** The arguments of chat.postMessage / chat.update besides `channel` (and `ts`). */
export interface SlackMessage {
  /** The notification text (push, screen readers): no request text, so nothing in it can be linkified. */
  text: string;
  blocks: Record<string, unknown>[];
  unfurl_links: false;
  unfurl_media: false;
}

/**
 * Escapes text for Slack mrkdwn (https://docs.slack.dev/messaging/formatting-message-text):
 * `&`, `<` and `>` are the only control characters, so after this no value can form a
 * link (`<url|text>`), a mention (`<@U…>`) or a broadcast (`<!channel>`).
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack's date token: each reader sees the time in their own time zone, the ISO form where it cannot. */
export function slackDate(at: { iso: string; unix: number }): string {
  return `<!date^${at.unix}^{date_short_pretty} {time}|${escapeMrkdwn(at.iso)}>`;
}

/** mrkdwn the client shows as written: `verbatim` stops Slack turning bare URLs and names into links. */
const md = (text: string) => ({ type: 'mrkdwn', text, verbatim: true });

/** Inline code cannot hold a backtick; the value is escaped as well. */
const code = (text: string) => `\`${escapeMrkdwn(text.replace(/`/g, "'"))}\``;

function blocksOf(v: NoticeView, withButton: boolean): Record<string, unknown>[] {
  const fields = [
    ...v.fields.map((f) => md(`*${f.label}*\n${f.code ? code(f.value) : escapeMrkdwn(f.value)}`)),
    md(`*Expires*\n${slackDate(v.expires)}${v.timeLeft ? ` (${v.timeLeft})` : ''}`),
  ];
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: v.title, emoji: false } },
    { type: 'section', text: md(`*${escapeMrkdwn(v.summary)}*`) },
    // A section holds at most 10 fields.
    { type: 'section', fields: fields.slice(0, 10) },
  ];
  if (v.escalation) blocks.push({ type: 'section', text: md(escapeMrkdwn(v.escalation)) });
  if (v.outcome) {
    const reason = v.outcome.reason ? `\nReason: ${escapeMrkdwn(v.outcome.reason)}` : '';
    blocks.push({
      type: 'section',
      text: md(`*${escapeMrkdwn(outcomeSentence(v.outcome))}* at ${slackDate(v.outcome.at)}${reason}`),
    });
  }
  if (withButton)
    blocks.push({
      type: 'actions',
      elements: [
        // A URL button only: it opens the reviewer page, where deciding needs a sign-in.
        {
          type: 'button',
          action_id: 'open_reviewer_page',
          text: { type: 'plain_text', text: 'Open the reviewer page', emoji: false },
          url: v.link,
        },
      ],
    });
  blocks.push({
    type: 'context',
    elements: [
      md(
        `Request ${code(v.requestId)}${withButton ? ' · this message cannot approve or reject; decide on the reviewer page' : ''}`,
      ),
    ],
  });
  return blocks;
}

function fallbackText(v: NoticeView): string {
  if (v.outcome) return `${v.title}: approval request ${escapeMrkdwn(v.requestId)} has ended`;
  if (v.kind === 'escalated') return `Escalated: approval request ${escapeMrkdwn(v.requestId)} still needs a decision`;
  return `Approval requested: request ${escapeMrkdwn(v.requestId)} needs a decision`;
}

/**
 * The Slack message of a notice. `requested` and `escalated` notices carry one URL button
 * to the reviewer page; an `ended` notice (the chat.update of the first message) carries
 * no button, only the outcome: who, when, and the reason given.
 */
export function slackMessage(kind: NoticeKind, facts: NoticeFacts, publicUrl: string): SlackMessage {
  const v = noticeView(kind, facts, publicUrl);
  return { text: fallbackText(v), blocks: blocksOf(v, kind !== 'ended'), unfurl_links: false, unfurl_media: false };
}
