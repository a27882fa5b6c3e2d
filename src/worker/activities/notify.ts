import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  NoticeFailureType,
  missingChannelSetting,
  noticeChannel,
  targetProblem,
  teamsWebhooks,
  type DeliverNoticeInput,
  type DeliverNoticeResult,
  type NoticeChannel,
} from '../../common/notice';
import { notifyEnv, type NotifySettings } from '../../notify/config';
import type { DeliveryFailure, NoticeSender } from '../notify/sender';
import { createSlackSender } from '../notify/slack-sender';
import { createEmailSender } from '../notify/email-sender';
import { createTeamsSender } from '../notify/teams-sender';
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
  const failed: DeliveryFailure = (message, details, retryAfterS) =>
    ApplicationFailure.create({
      message: redact(message),
      type: NoticeFailureType.DeliveryFailed,
      nonRetryable: false,
      details: details ? [details] : undefined,
      nextRetryDelay: retryAfterS !== undefined && retryAfterS > 0 ? retryAfterS * 1000 : undefined,
    });

  const senderDeps = { settings: s, timeoutMs, fetch: deps.fetch, failed };
  const senders: Record<NoticeChannel, NoticeSender> = {
    slack: createSlackSender(senderDeps),
    email: createEmailSender(senderDeps),
    teams: createTeamsSender(senderDeps),
  };

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
        const result = await senders[channel](input, publicUrl, ctx.cancellationSignal);
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
