import type { NoticeFacts, NoticeKind } from '../../src/common/notice';
import { slackMessage, escapeMrkdwn } from '../../src/notify/slack-message';
import { emailMessage, emailMessageId, escapeHtml, rootMessageId } from '../../src/notify/email-message';
import { teamsCard } from '../../src/notify/teams-card';
import { spanText, timeLeft } from '../../src/notify/notice-view';

const PUBLIC = 'https://gate.example.com/';
const LINK = 'https://gate.example.com/#/approvals/appr_7f3c2a';

const facts: NoticeFacts = {
  request_id: 'appr_7f3c2a',
  summary: 'Refund order 1042',
  action: 'refund.create',
  target: 'order:1042',
  agent_id: 'support-agent',
  blast_radius: { cents: 125000, customers: 1 },
  expires_at: '2026-12-07T16:00:00.000Z',
  payload_sha256: '9f2c4e1ab37d55e0c6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7',
  status: 'requested',
  approvals: 1,
  approvals_required: 2,
  sent_at: '2026-12-07T13:30:00.000Z',
};
const escalated: NoticeFacts = { ...facts, level: 2, loop: 1, roles_added: ['cfo'] };
const ended: NoticeFacts = {
  ...facts,
  status: 'denied',
  outcome: { status: 'denied', by: 'alice', at: '2026-12-07T14:05:00.000Z', reason: 'Not eligible' },
};
const KINDS: [NoticeKind, NoticeFacts][] = [
  ['requested', facts],
  ['escalated', escalated],
  ['ended', ended],
];

// Untrusted text that tries every way to make a link or a mention in each channel.
const HOSTILE =
  '<https://evil.example/x|Approve now> <!channel> <@U0BAD> [click](https://evil.example) <a href="https://evil.example">ok</a> & <script>x</script>';
const hostile: NoticeFacts = {
  ...ended,
  summary: HOSTILE,
  action: 'refund.<!here>',
  target: HOSTILE,
  agent_id: '<@U0BAD>',
  tenant: '<b>acme</b>',
  blast_radius: { '<!everyone>': '<https://evil.example>' },
  outcome: { status: 'denied', by: '<@U0BAD>', at: '2026-12-07T14:05:00Z', reason: HOSTILE },
};

/** Every string in a JSON value, with the property name it sits under. */
function strings(value: unknown, key = ''): { key: string; text: string }[] {
  if (typeof value === 'string') return [{ key, text: value }];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v, key));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, k));
  return [];
}

/** The links and mentions Slack would make of a message: `url` fields and `<…>` in text other than the date token. */
function slackLinks(message: object): string[] {
  return strings(message).flatMap(({ key, text }) =>
    key === 'url'
      ? [text]
      : [...text.matchAll(/<(?!!date\^\d+\^\{date_short_pretty\} \{time\}\|[0-9TZ:-]+>)[^>]*>/g)].map((m) => m[0]),
  );
}

describe('Slack message', () => {
  it.each(KINDS)('shows the facts of a %s notice', (kind, f) => {
    const m = slackMessage(kind, f, PUBLIC);
    const text = strings(m.blocks)
      .map((s) => s.text)
      .join('\n');
    for (const fact of [
      'Refund order 1042',
      'refund.create',
      'order:1042',
      'support-agent',
      'cents 125000 · customers 1',
      '1 of 2',
    ])
      expect(text).toContain(fact);
    expect(text).toContain('`9f2c4e1ab37d`');
    expect(text).not.toContain('9f2c4e1ab37d5'); // the first 12 hex digits only
    expect(text).toContain('<!date^1796659200^{date_short_pretty} {time}|2026-12-07T16:00:00Z>');
    if (kind === 'escalated') expect(text).toMatch(/Level 2, repeat 1\. Roles that may now decide: cfo/);
    if (kind === 'ended') {
      expect(text).toContain('*Denied by alice* at <!date^1796652300^');
      expect(text).toContain('Reason: Not eligible');
      expect(text).not.toContain('in 2 h');
    } else expect(text).toContain('(in 2 h 30 min)');
    for (const b of m.blocks)
      if (b.type === 'section' || b.type === 'context') expect(JSON.stringify(b)).not.toMatch(/"verbatim":false/);
  });

  it('carries exactly one URL button to the reviewer page, and no interactive approve or reject action', () => {
    const m = slackMessage('requested', facts, PUBLIC);
    expect(slackLinks(m)).toEqual([LINK]);
    const elements = m.blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => b.elements as Record<string, unknown>[]);
    expect(elements).toHaveLength(1);
    expect(elements[0]).toMatchObject({ type: 'button', url: LINK });
    expect(elements[0]).not.toHaveProperty('value'); // a value is what an interactive handler would act on
    expect(JSON.stringify(m)).not.toMatch(/approve_|reject_|"style"/);
  });

  it('edits an ended gate to its outcome with no button and no link', () => {
    const m = slackMessage('ended', ended, PUBLIC);
    expect(m.blocks.some((b) => b.type === 'actions')).toBe(false);
    expect(slackLinks(m)).toEqual([]);
    expect(m.text).toContain('Denied');
  });

  it('escapes request text so it cannot form a link, a mention or a broadcast', () => {
    for (const kind of ['requested', 'ended'] as const) {
      const m = slackMessage(kind, hostile, PUBLIC);
      expect(slackLinks(m)).toEqual(kind === 'requested' ? [LINK] : []);
      const all = JSON.stringify(m);
      expect(all).toContain('&lt;https://evil.example/x|Approve now&gt; &lt;!channel&gt; &lt;@U0BAD&gt;');
      expect(all).toContain('&amp; &lt;script&gt;');
      // The notification text carries no request text at all.
      expect(m.text).not.toMatch(/evil|U0BAD|channel/);
    }
    expect(escapeMrkdwn('a & <b> c')).toBe('a &amp; &lt;b&gt; c');
  });
});

describe('email message', () => {
  it.each(KINDS)('has a text part and an HTML part with the same facts for a %s notice', (kind, f) => {
    const m = emailMessage(kind, f, PUBLIC);
    for (const part of [m.text, m.html])
      for (const fact of [
        'Refund order 1042',
        'refund.create',
        'order:1042',
        'support-agent',
        'cents 125000',
        '1 of 2',
        '9f2c4e1ab37d',
        '2026-12-07 16:00 UTC',
        'appr_7f3c2a',
      ])
        expect(part).toContain(fact);
    expect(m.subject).toContain('refund.create on order:1042');
    expect(m.subject).toMatch(
      kind === 'requested' ? /^Approval requested:/ : kind === 'escalated' ? /^Escalated \(level 2\):/ : /^Denied:/,
    );
    if (kind === 'ended') expect(m.text).toContain('Denied by alice at 2026-12-07 14:05 UTC');
    if (kind === 'escalated') expect(m.html).toContain('Roles that may now decide: cfo');
  });

  it.each(KINDS)(
    'carries exactly one link in each part of a %s notice, the reviewer page, with no token',
    (kind, f) => {
      const m = emailMessage(kind, f, PUBLIC);
      expect([...m.text.matchAll(/https?:\/\/\S+/g)].map((x) => x[0])).toEqual([LINK]);
      expect([...m.html.matchAll(/<a\b[^>]*href="([^"]*)"/g)].map((x) => x[1])).toEqual([LINK]);
      expect([...m.html.matchAll(/https?:\/\//g)]).toHaveLength(1);
      expect(LINK).not.toMatch(/[?&](token|key|sig)/i);
    },
  );

  it('escapes request text in the HTML part and keeps it on one line in the subject', () => {
    const m = emailMessage('ended', { ...hostile, target: 'x\r\nBcc: victim@example.com' }, PUBLIC);
    expect([...m.html.matchAll(/<a\b[^>]*href="([^"]*)"/g)].map((x) => x[1])).toEqual([LINK]);
    expect(m.html).not.toMatch(/<script|<b>|<a href="https:\/\/evil/);
    expect(m.html).toContain('&lt;a href=&quot;https://evil.example&quot;&gt;');
    expect(m.subject).not.toMatch(/[\r\n]/);
    expect(m.subject).toContain('x Bcc: victim@example.com');
    expect(escapeHtml(`<"'&>`)).toBe('&lt;&quot;&#39;&amp;&gt;');
  });

  it('derives stable Message-IDs from the request, the first one the root of the thread', () => {
    expect(emailMessageId('requested', facts, PUBLIC)).toBe('<appr_7f3c2a@gate.example.com>');
    expect(rootMessageId('appr_7f3c2a', PUBLIC)).toBe('<appr_7f3c2a@gate.example.com>');
    expect(emailMessageId('escalated', escalated, PUBLIC)).toBe('<appr_7f3c2a.escalated.2.1@gate.example.com>');
    expect(emailMessageId('ended', ended, PUBLIC)).toBe('<appr_7f3c2a.ended@gate.example.com>');
    // Characters a msg-id cannot hold are encoded, so two ids never share one Message-ID.
    expect(emailMessageId('requested', { request_id: 'a b.c(d)@e' }, PUBLIC)).toBe(
      '<a%20b%2Ec%28d%29%40e@gate.example.com>',
    );
  });
});

describe('Teams card', () => {
  const actionsOf = (m: ReturnType<typeof teamsCard>) => m.attachments[0]!.content.actions as Record<string, unknown>[];

  it.each(KINDS)('is one Adaptive Card with the facts of a %s notice and one Action.OpenUrl', (kind, f) => {
    const m = teamsCard(kind, f, PUBLIC);
    expect(m.type).toBe('message');
    expect(m.attachments).toHaveLength(1);
    expect(m.attachments[0]!.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(m.attachments[0]!.content).toMatchObject({ type: 'AdaptiveCard' });
    const text = strings(m)
      .map((s) => s.text)
      .join('\n');
    for (const fact of [
      'Refund order 1042',
      'refund.create',
      'order:1042',
      'support-agent',
      'cents 125000',
      '1 of 2',
      '9f2c4e1ab37d',
    ])
      expect(text).toContain(fact);
    expect(text).toContain('{{DATE(2026-12-07T16:00:00Z, SHORT)}} {{TIME(2026-12-07T16:00:00Z)}}');
    expect(actionsOf(m)).toEqual([expect.objectContaining({ type: 'Action.OpenUrl', url: LINK })]);
    expect(JSON.stringify(m)).not.toMatch(/Action\.(Submit|Execute|Http)|selectAction/);
    expect(
      strings(m)
        .filter((s) => s.key === 'url')
        .map((s) => s.text),
    ).toEqual([LINK]);
  });

  it('puts request text only in TextRuns, which Teams shows without Markdown', () => {
    const m = teamsCard('ended', hostile, PUBLIC);
    const blocks = JSON.stringify(
      (m.attachments[0]!.content.body as { type: string }[]).filter((b) => b.type === 'TextBlock'),
    );
    expect(blocks).not.toMatch(/evil|U0BAD|acme|everyone/);
    expect(JSON.stringify(m)).toContain('[click](https://evil.example)'); // present, as a TextRun's plain text
    expect(
      strings(m)
        .filter((s) => s.key === 'url')
        .map((s) => s.text),
    ).toEqual([LINK]);
  });
});

describe('every channel', () => {
  it('never shows the args or other evidence fields it was not given to show', () => {
    const leaky = {
      ...facts,
      args: { password: 'hunter2', card: '4111111111111111' },
      snapshot: { secret: 's3cr3t' },
    } as NoticeFacts;
    for (const kind of ['requested', 'escalated', 'ended'] as const) {
      const all = JSON.stringify([
        slackMessage(kind, leaky, PUBLIC),
        emailMessage(kind, leaky, PUBLIC),
        teamsCard(kind, leaky, PUBLIC),
      ]);
      expect(all).not.toMatch(/hunter2|4111111111111111|s3cr3t|password/);
    }
  });

  it('counts the time left from the time the gate sent the notice, not the clock', () => {
    expect(timeLeft('2026-12-07T13:30:00Z', '2026-12-07T16:00:00Z')).toBe('in 2 h 30 min');
    expect(timeLeft('2026-12-07T16:00:01Z', '2026-12-07T16:00:00Z')).toBe('expired');
    expect([spanText(30_000), spanText(45 * 60_000), spanText(3 * 3600_000), spanText(50 * 3600_000)]).toEqual([
      'under a minute',
      '45 min',
      '3 h',
      '2 d 2 h',
    ]);
  });
});
