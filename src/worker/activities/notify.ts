import { ApplicationFailure, Context } from '@temporalio/activity';
import { LogLevel, WebClient } from '@slack/web-api';
import nodemailer, { type Transporter } from 'nodemailer';
import {
  NoticeFailureType,
  missingChannelSetting,
  noticeChannel,
  targetProblem,
  teamsWebhooks,
  type DeliverNoticeInput,
  type DeliverNoticeResult,
} from '../../common/notice';
import { notifyEnv, type NotifySettings } from '../../notify/config';
import { slackMessage } from '../../notify/slack-message';
import { emailMessage, emailMessageId, rootMessageId } from '../../notify/email-message';
import { teamsCard } from '../../notify/teams-card';
import type { WebhookLogger } from './webhooks';

export interface NotifyActivityDeps {
  /** The channels (GATE_PUBLIC_URL, GATE_SLACK_*, GATE_SMTP_URL, GATE_EMAIL_FROM, GATE_TEAMS_WEBHOOKS). */
  settings: NotifySettings;
  /** Per call to a channel (one Slack call, one SMTP session, one webhook POST). Default 10 000 ms. */
  timeoutMs?: number;
  /** Injected for tests; default the global fetch (Slack and Teams). */
  fetch?: typeof fetch;
  logger?: WebhookLogger;
}

/** Slack errors of chat.update after which the message cannot be edited: a new one is posted instead. */
const GONE = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed']);

/** The settings' secrets, so that no error or log line repeats one. */
function secretsOf(s: NotifySettings): string[] {
  const out: string[] = [];
  if (s.slackBotToken) out.push(s.slackBotToken);
  if (s.smtpUrl && URL.canParse(s.smtpUrl)) {
    const u = new URL(s.smtpUrl);
    if (u.password) out.push(u.password, decodeURIComponent(u.password));
  }
  for (const url of teamsWebhooks(s.teamsWebhooks).values()) out.push(url);
  return out.filter((x) => x.length >= 4).sort((a, b) => b.length - a.length);
}

/**
 * Notification delivery for the approvalGate workflow (docs/notifications.md): one message
 * to one target per call. Each channel call has its own timeout and the clients' own
 * retries are off, so the activity's retry policy (the workflow's, at most 60 s) governs.
 *
 * Throws a retryable `NotificationDeliveryFailed` when the channel refuses or cannot be
 * reached, and a non-retryable `NotificationMisconfigured` when the target is malformed
 * or its channel is not configured on this worker.
 */
export function createNotifyActivities(deps: NotifyActivityDeps) {
  const s = deps.settings;
  const env = notifyEnv(s);
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const secrets = secretsOf(s);
  const redact = (text: string): string => secrets.reduce((t, x) => t.split(x).join('[redacted]'), text);
  /** A retryable failure; `retryAfterS` (a channel's Retry-After) sets the next attempt's delay. */
  const failed = (message: string, details?: Record<string, unknown>, retryAfterS?: number): ApplicationFailure =>
    ApplicationFailure.create({
      message: redact(message),
      type: NoticeFailureType.DeliveryFailed,
      nonRetryable: false,
      details: details ? [details] : undefined,
      nextRetryDelay: retryAfterS !== undefined && retryAfterS > 0 ? retryAfterS * 1000 : undefined,
    });

  let slack: WebClient | undefined;
  const slackClient = (): WebClient =>
    (slack ??= new WebClient(s.slackBotToken, {
      slackApiUrl: s.slackApiUrl,
      retryConfig: { retries: 0 }, // the activity's retry policy retries, within the workflow's 60 s
      rejectRateLimitedCalls: true, // a 429 fails the attempt instead of sleeping inside it
      timeout: timeoutMs,
      logLevel: LogLevel.ERROR,
      fetch: deps.fetch,
    }));
  let mailer: Transporter | undefined;
  const mailTransport = (): Transporter =>
    (mailer ??= nodemailer.createTransport({
      url: s.smtpUrl,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      logger: false,
    }));

  const slackError = (err: unknown): { code: string; reason: string; retryAfterS?: number } => {
    const e = err as {
      code?: string;
      message?: string;
      data?: { error?: string };
      statusCode?: number;
      retryAfter?: number;
    };
    if (e.data?.error) return { code: e.data.error, reason: `Slack answered ${e.data.error}` };
    if (typeof e.retryAfter === 'number')
      return {
        code: 'ratelimited',
        reason: `Slack rate-limited the call for ${e.retryAfter} s`,
        retryAfterS: e.retryAfter,
      };
    if (e.statusCode) return { code: 'http', reason: `Slack answered HTTP ${e.statusCode}` };
    return { code: e.code ?? 'error', reason: e.message ?? String(err) };
  };

  async function toSlack(input: DeliverNoticeInput, publicUrl: string): Promise<DeliverNoticeResult> {
    const rest = input.target.slice('slack:'.length);
    // A member id is posted to as a channel: Slack delivers it in the app's direct messages with
    // that person. A channel id (`#C0123ABCD`) is sent bare, a channel name with its `#`.
    const channel = rest.startsWith('@') || /^#[CG][A-Z0-9]{8,}$/.test(rest) ? rest.slice(1) : rest;
    const message = slackMessage(input.kind, input.facts, publicUrl);
    const client = slackClient();
    const thread = input.kind === 'ended' ? input.thread?.slack : undefined;
    if (thread) {
      try {
        await client.chat.update({ channel: thread.channel, ts: thread.ts, ...message });
        return { target: input.target, channel: 'slack', thread: { slack: thread } };
      } catch (err) {
        const { code, reason, retryAfterS } = slackError(err);
        if (!GONE.has(code))
          throw failed(`slack chat.update for ${input.target} failed: ${reason}`, { code }, retryAfterS);
        // The first message was deleted or can no longer be edited: say how it ended in a new one.
      }
    }
    try {
      const r = await client.chat.postMessage({ channel, ...message });
      if (!r.channel || !r.ts)
        throw failed(`slack chat.postMessage for ${input.target} answered without channel and ts`);
      return { target: input.target, channel: 'slack', thread: { slack: { channel: r.channel, ts: r.ts } } };
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      const { code, reason, retryAfterS } = slackError(err);
      throw failed(`slack chat.postMessage for ${input.target} failed: ${reason}`, { code }, retryAfterS);
    }
  }

  async function toEmail(input: DeliverNoticeInput, publicUrl: string): Promise<DeliverNoticeResult> {
    const to = input.target.slice('email:'.length);
    const m = emailMessage(input.kind, input.facts, publicUrl);
    const messageId = emailMessageId(input.kind, input.facts, publicUrl);
    const root = rootMessageId(input.facts.request_id, publicUrl);
    const parent = input.thread?.email?.message_id ?? root;
    const replyTo = input.kind === 'requested' ? {} : { inReplyTo: parent, references: [...new Set([root, parent])] };
    try {
      // The same Message-ID on every attempt: a mail sent twice (an attempt that timed out after
      // the server took it) is recognisably one message.
      await mailTransport().sendMail({ from: s.emailFrom, to, ...m, messageId, ...replyTo });
    } catch (err) {
      const e = err as { message?: string; responseCode?: number; code?: string };
      throw failed(`email to ${to} failed: ${e.message ?? String(err)}`, {
        code: e.code ?? null,
        responseCode: e.responseCode ?? null,
      });
    }
    return { target: input.target, channel: 'email', thread: { email: { message_id: root } } };
  }

  async function toTeams(
    input: DeliverNoticeInput,
    publicUrl: string,
    cancelled: AbortSignal,
  ): Promise<DeliverNoticeResult> {
    const name = input.target.slice('teams:'.length);
    const url = teamsWebhooks(s.teamsWebhooks).get(name)!;
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), cancelled]);
    let status: number;
    let text: string;
    let retryAfterS: number | undefined;
    try {
      const res = await (deps.fetch ?? fetch)(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'approval-gate-notify' },
        body: JSON.stringify(teamsCard(input.kind, input.facts, publicUrl)),
        signal,
        redirect: 'manual',
      });
      status = res.status;
      retryAfterS = Number(res.headers.get('retry-after')) || undefined;
      text = await res.text().catch(() => '');
    } catch (err) {
      // Never the webhook's URL: it is the credential.
      throw failed(`teams webhook "${name}" unreachable: ${err instanceof Error ? err.message : String(err)}`);
    }
    // A classic connector answers 200 with an error text when Teams did not take the card.
    if (status < 200 || status >= 300 || /failed with error/i.test(text))
      throw failed(
        `teams webhook "${name}" answered HTTP ${status}${text ? ` ${JSON.stringify(text.slice(0, 200))}` : ''}`,
        { status },
        retryAfterS,
      );
    return { target: input.target, channel: 'teams' };
  }

  return {
    /**
     * Sends one notice to one target. Slack: chat.postMessage, or chat.update of the first
     * message for an `ended` notice that names it (`thread.slack`). Email: a mail with a
     * Message-ID derived from the request, replying to the request's first mail after it.
     * Teams: a new card on the named incoming webhook.
     */
    async deliverNotice(input: DeliverNoticeInput): Promise<DeliverNoticeResult> {
      const ctx = Context.current();
      const log = deps.logger ?? { info: (o, m) => ctx.log.info(m, o), warn: (o, m) => ctx.log.warn(m, o) };
      const problem = targetProblem(input.target) ?? missingChannelSetting(input.target, env);
      if (problem) throw ApplicationFailure.nonRetryable(problem, NoticeFailureType.Misconfigured);
      const channel = noticeChannel(input.target)!;
      const publicUrl = s.publicUrl!; // missingChannelSetting refused its absence
      const meta = { notice_id: input.notice_id, target: input.target, kind: input.kind, attempt: ctx.info.attempt };
      try {
        const result =
          channel === 'slack'
            ? await toSlack(input, publicUrl)
            : channel === 'email'
              ? await toEmail(input, publicUrl)
              : await toTeams(input, publicUrl, ctx.cancellationSignal);
        log.info(meta, 'notice delivered');
        return result;
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
        const failure = err instanceof ApplicationFailure ? err : failed(`${channel}: ${String(err)}`);
        log.warn({ ...meta, error: failure.message }, 'notice not delivered; Temporal retries it');
        throw failure;
      }
    },
  };
}
