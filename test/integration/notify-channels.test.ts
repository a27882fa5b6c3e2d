import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import {
  NoticeFailureType,
  type DeliverNoticeInput,
  type DeliverNoticeResult,
  type NoticeFacts,
} from '../../src/common/notice';
import { createNotifyActivities } from '../../src/worker/activities/notify';
import { createActivities } from '../../src/worker/activities';
import { openDb } from '../../src/store/db';
import type { NotifySettings } from '../../src/notify/config';
import { freePort } from '../support/ports';
import { startSlackStandin, type SlackStandin } from '../support/slack-standin';
import { startSmtpStandin, type SmtpStandin } from '../support/smtp-standin';
import { startTeamsStandin, type TeamsStandin } from '../support/teams-standin';

// The real deliverNotice activity against local stand-ins that speak each channel's protocol
// (test/support/*-standin.ts); one attempt per MockActivityEnvironment run.

const PUBLIC_URL = 'https://gate.example.test';
const SMTP_AUTH = { user: 'gate-mailer', pass: 'smtp-s3cret-pass' };
const facts: NoticeFacts = {
  request_id: 'appr_notify_1',
  summary: 'Refund order 1042',
  action: 'refund.create',
  target: 'order:1042',
  agent_id: 'support-agent',
  blast_radius: { cents: 125000 },
  expires_at: '2030-01-01T12:00:00.000Z',
  payload_sha256: 'ab'.repeat(32),
  status: 'requested',
  approvals: 0,
  approvals_required: 1,
  sent_at: '2030-01-01T10:00:00.000Z',
};
const LINK = `${PUBLIC_URL}/#/approvals/${facts.request_id}`;
const escalatedFacts: NoticeFacts = { ...facts, level: 1, loop: 0, roles_added: ['cfo'] };
const endedFacts: NoticeFacts = {
  ...facts,
  status: 'approved',
  approvals: 1,
  outcome: { status: 'approved', by: 'alice', at: '2030-01-01T10:30:00.000Z' },
};

function notice(
  kind: DeliverNoticeInput['kind'],
  target: string,
  thread?: DeliverNoticeInput['thread'],
): DeliverNoticeInput {
  const f = kind === 'requested' ? facts : kind === 'escalated' ? escalatedFacts : endedFacts;
  return {
    notice_id: `${f.request_id}:${kind}:${f.level ?? 0}:${f.loop ?? 0}:${target}`,
    target,
    kind,
    facts: f,
    thread,
  };
}

const quiet = { info: () => undefined, warn: () => undefined };

async function deliver(settings: NotifySettings, input: DeliverNoticeInput): Promise<DeliverNoticeResult> {
  const { deliverNotice } = createNotifyActivities({ settings, logger: quiet, timeoutMs: 5_000 });
  const env = new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR') });
  return env.run(deliverNotice, input);
}

async function failure(settings: NotifySettings, input: DeliverNoticeInput): Promise<ApplicationFailure> {
  const err = await deliver(settings, input).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

/** The links a Slack message makes: `url` fields and `<…>` in text other than the date token. */
function slackLinks(value: unknown, key = ''): string[] {
  if (typeof value === 'string')
    return key === 'url' ? [value] : [...value.matchAll(/<(?!!date\^\d+\^)[^>]*>/g)].map((m) => m[0]);
  if (Array.isArray(value)) return value.flatMap((v) => slackLinks(v, key));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => slackLinks(v, k));
  return [];
}

let slack: SlackStandin;
let smtp: SmtpStandin;
let teams: TeamsStandin;
let settings: NotifySettings;

beforeAll(async () => {
  [slack, smtp, teams] = await Promise.all([
    startSlackStandin(),
    startSmtpStandin({ auth: SMTP_AUTH }),
    startTeamsStandin(),
  ]);
  settings = {
    publicUrl: PUBLIC_URL,
    slackBotToken: slack.token,
    slackApiUrl: slack.url,
    smtpUrl: smtp.url,
    emailFrom: 'approval-gate@example.test',
    teamsWebhooks: teams.setting('finance'),
  };
});
afterAll(async () => {
  await Promise.all([slack?.close(), smtp?.close(), teams?.close()]);
});
afterEach(() => {
  slack.refuse(false);
  smtp.refuse(false);
  teams.refuse(false);
});

describe('deliverNotice to Slack', () => {
  it('posts to a channel with one URL button, then edits that message to the outcome when the gate ends', async () => {
    const posted = await deliver(settings, notice('requested', 'slack:#finance-approvals'));
    expect(posted.channel).toBe('slack');
    const thread = posted.thread!.slack!;
    const message = slack.message(thread.channel, thread.ts)!;
    expect(message.posted_to).toBe('#finance-approvals');
    expect(slackLinks(message.blocks)).toEqual([LINK]);
    expect(slack.calls.at(-1)).toMatchObject({ method: 'chat.postMessage', token: slack.token });

    const ended = await deliver(settings, notice('ended', 'slack:#finance-approvals', posted.thread));
    expect(ended.thread).toEqual(posted.thread);
    expect(slack.calls.at(-1)).toMatchObject({
      method: 'chat.update',
      args: { channel: thread.channel, ts: thread.ts },
    });
    expect(message.edits).toBe(1);
    expect(JSON.stringify(message.blocks)).toContain('Approved by alice');
    expect(slackLinks(message.blocks)).toEqual([]); // the edited message has no button left
    expect(slack.messages.filter((m) => m.channel === thread.channel)).toHaveLength(1);
  });

  it('posts to a member id, which Slack delivers as a direct message', async () => {
    const r = await deliver(settings, notice('escalated', 'slack:@U012AB3CD'));
    const m = slack.message(r.thread!.slack!.channel, r.thread!.slack!.ts)!;
    expect(m.posted_to).toBe('U012AB3CD');
    expect(m.channel).toMatch(/^D/);
    expect(JSON.stringify(m.blocks)).toContain('Roles that may now decide: cfo');
  });

  it('posts the outcome as a new message when the first one can no longer be edited', async () => {
    const r = await deliver(
      settings,
      notice('ended', 'slack:#finance-approvals', { slack: { channel: 'C0GONE0000', ts: '1.000001' } }),
    );
    expect(r.thread!.slack).not.toEqual({ channel: 'C0GONE0000', ts: '1.000001' });
    expect(slack.message(r.thread!.slack!.channel, r.thread!.slack!.ts)).toBeDefined();
  });

  it.each(['http_500', 'fatal_error'] as const)('fails retryably while Slack refuses (%s)', async (mode) => {
    slack.refuse(mode);
    const err = await failure(settings, notice('requested', 'slack:#finance-approvals'));
    expect(err.type).toBe(NoticeFailureType.DeliveryFailed);
    expect(err.nonRetryable).toBe(false);
    expect(err.message).toMatch(mode === 'http_500' ? /HTTP 500/ : /fatal_error/);
  });

  it("fails at once when Slack rate-limits the call, and asks Temporal to wait Slack's Retry-After", async () => {
    slack.refuse('rate_limited');
    const started = Date.now();
    const err = await failure(settings, notice('requested', 'slack:#finance-approvals'));
    expect(Date.now() - started).toBeLessThan(4_000); // the client did not sleep out the 5 s itself
    expect(err.type).toBe(NoticeFailureType.DeliveryFailed);
    expect(err.nonRetryable).toBe(false);
    expect(err.nextRetryDelay).toBe(5_000);
  });

  it('fails retryably on a bad token without repeating it, and when Slack is unreachable', async () => {
    const bad = 'xoxb-wrong-token-9999';
    const err = await failure({ ...settings, slackBotToken: bad }, notice('requested', 'slack:#finance-approvals'));
    expect(err.type).toBe(NoticeFailureType.DeliveryFailed);
    expect(err.message).toContain('invalid_auth');
    expect(JSON.stringify([err.message, err.details])).not.toContain(bad);
    const down = await failure(
      { ...settings, slackApiUrl: `http://127.0.0.1:${await freePort()}/api/` },
      notice('requested', 'slack:#finance-approvals'),
    );
    expect(down.type).toBe(NoticeFailureType.DeliveryFailed);
    expect(down.nonRetryable).toBe(false);
  });
});

describe('deliverNotice by email', () => {
  it("threads a request's mails under the first one's Message-ID, each with a text and an HTML part", async () => {
    const before = smtp.mails.length;
    const first = await deliver(settings, notice('requested', 'email:leads@example.test'));
    const root = `<${facts.request_id}@gate.example.test>`;
    expect(first.thread).toEqual({ email: { message_id: root } });
    await deliver(settings, notice('escalated', 'email:cfo@example.test'));
    await deliver(settings, notice('ended', 'email:leads@example.test', first.thread));
    const [requested, escalated, ended] = smtp.mails.slice(before);
    expect(requested).toMatchObject({ messageId: root, inReplyTo: undefined, references: [], user: SMTP_AUTH.user });
    expect(requested!.envelope).toEqual({ from: 'approval-gate@example.test', to: ['leads@example.test'] });
    expect(requested!.subject).toBe('Approval requested: refund.create on order:1042');
    expect(escalated).toMatchObject({
      messageId: `<${facts.request_id}.escalated.1.0@gate.example.test>`,
      inReplyTo: root,
      references: [root],
    });
    expect(ended).toMatchObject({
      messageId: `<${facts.request_id}.ended@gate.example.test>`,
      inReplyTo: root,
      references: [root],
    });
    expect(ended!.subject).toBe('Approved: refund.create on order:1042');
    for (const mail of [requested, escalated, ended]) {
      expect(mail!.text).toContain('Refund order 1042');
      expect(mail!.html).toContain('Refund order 1042');
      expect([...mail!.text!.matchAll(/https?:\/\/\S+/g)].map((m) => m[0])).toEqual([LINK]);
      expect([...mail!.html!.matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual([LINK]);
    }
  });

  it('fails retryably while the server rejects mail, without showing the SMTP password', async () => {
    smtp.refuse(true);
    const err = await failure(settings, notice('requested', 'email:leads@example.test'));
    expect(err.type).toBe(NoticeFailureType.DeliveryFailed);
    expect(err.nonRetryable).toBe(false);
    expect(err.message).toContain('554');
    const wrong = await failure(
      { ...settings, smtpUrl: smtp.url.replace(SMTP_AUTH.pass, 'wrong-pass') },
      notice('requested', 'email:leads@example.test'),
    );
    expect(wrong.type).toBe(NoticeFailureType.DeliveryFailed);
    expect(JSON.stringify([err.message, err.details, wrong.message, wrong.details])).not.toMatch(/s3cret|wrong-pass/);
  });
});

describe('deliverNotice to Teams', () => {
  it('posts a new Adaptive Card for every notice, whose only action opens the reviewer page', async () => {
    const before = teams.cards.length;
    const r = await deliver(settings, notice('requested', 'teams:finance'));
    await deliver(settings, notice('ended', 'teams:finance'));
    expect(r).toEqual({ target: 'teams:finance', channel: 'teams' });
    const cards = teams.cards.slice(before);
    expect(cards.map((c) => c.webhook)).toEqual(['finance', 'finance']);
    for (const c of cards) {
      expect(c.contentType).toBe('application/json');
      expect(c.card).toMatchObject({ type: 'AdaptiveCard', actions: [{ type: 'Action.OpenUrl', url: LINK }] });
      const urls = JSON.stringify(c.body).match(/https?:\/\/[^"\s]+/g);
      expect(urls).toEqual([LINK]);
    }
  });

  it('fails retryably while the webhook answers 500, without showing its URL', async () => {
    teams.refuse(true);
    const err = await failure(settings, notice('requested', 'teams:finance'));
    expect(err.type).toBe(NoticeFailureType.DeliveryFailed);
    expect(err.nonRetryable).toBe(false);
    expect(err.message).toContain('HTTP 500');
    expect(err.message).not.toContain(teams.webhookUrl('finance'));
  });
});

describe('deliverNotice to a channel the worker does not have', () => {
  it.each([
    ['teams:ops', 'GATE_TEAMS_WEBHOOKS has no webhook named "ops"', {}],
    ['email:leads@example.test', 'GATE_SMTP_URL is not set', { smtpUrl: undefined }],
    ['slack:#finance', 'GATE_SLACK_BOT_TOKEN is not set', { slackBotToken: undefined }],
    ['slack:#finance', 'GATE_PUBLIC_URL is not set', { publicUrl: undefined }],
    ['slack:finance', 'slack:#channel or slack:@member-id', {}],
  ])('refuses %s without retrying: %s', async (target, why, change) => {
    const calls = slack.calls.length + smtp.mails.length + teams.cards.length;
    const err = await failure({ ...settings, ...change }, notice('requested', target));
    expect(err.type).toBe(NoticeFailureType.Misconfigured);
    expect(err.nonRetryable).toBe(true);
    expect(err.message).toContain(why);
    expect(slack.calls.length + smtp.mails.length + teams.cards.length).toBe(calls); // nothing was sent
  });
});

describe('the gate worker', () => {
  it('registers deliverNotice built from its notification settings', async () => {
    const db = openDb({ sqliteFile: ':memory:' });
    try {
      const { activities } = await createActivities({ db, domains: [], notify: settings });
      const deliverNotice = activities.deliverNotice as ReturnType<typeof createNotifyActivities>['deliverNotice'];
      const env = new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR') });
      const r: DeliverNoticeResult = await env.run(deliverNotice, notice('requested', 'slack:#wired'));
      expect(slack.message(r.thread!.slack!.channel, r.thread!.slack!.ts)?.posted_to).toBe('#wired');
    } finally {
      await db.close();
    }
  });
});

describe('every message the stand-ins received', () => {
  it('links only to the reviewer page, and no link carries a token', () => {
    const links = [
      ...slack.messages.flatMap((m) => m.versions.flatMap((v) => slackLinks(v.blocks))),
      ...smtp.mails.flatMap((m) => [...`${m.text}\n${m.html}`.matchAll(/https?:\/\/[^\s"<]+/g)].map((x) => x[0])),
      ...teams.cards.flatMap((c) => JSON.stringify(c.body).match(/https?:\/\/[^"\s]+/g) ?? []),
    ];
    expect(links.length).toBeGreaterThan(5);
    expect(new Set(links)).toEqual(new Set([LINK]));
    expect(LINK).not.toMatch(/[?&]|token|key=/i);
  });
});
