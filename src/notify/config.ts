// The notification settings (docs/notifications.md, Settings): read, checked at startup,
// and never echoed with their secrets (bot token, SMTP password, webhook URLs). Pure.
import { ConfigurationError } from '../common/errors';
import { missingChannelSetting, notifyTargets, targetProblem } from '../common/notice';

/** Slack's Web API base, the default of GATE_SLACK_API_URL. */
export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

/** The notification channels a worker can deliver to. Empty: every target is misconfigured. */
export interface NotifySettings {
  /** GATE_PUBLIC_URL: the reviewer page's base; every message links there. */
  publicUrl?: string;
  /** GATE_SLACK_BOT_TOKEN (`xoxb-…`): a secret. */
  slackBotToken?: string;
  /** GATE_SLACK_API_URL: default Slack's Web API. */
  slackApiUrl?: string;
  /** GATE_SMTP_URL: `smtp://` or `smtps://`, credentials in the URL (a secret). */
  smtpUrl?: string;
  /** GATE_EMAIL_FROM: the From address of every mail. */
  emailFrom?: string;
  /** GATE_TEAMS_WEBHOOKS: `name=url,...` (the URLs are secrets: anyone holding one can post). */
  teamsWebhooks?: string;
  /** GATE_NOTIFY: targets notified for every request that names none. */
  notify?: string[];
}

type Env = Record<string, string | undefined>;

/** The settings as the environment names them, for missingChannelSetting. */
export function notifyEnv(s: NotifySettings): Env {
  return {
    GATE_PUBLIC_URL: s.publicUrl,
    GATE_SLACK_BOT_TOKEN: s.slackBotToken,
    GATE_SLACK_API_URL: s.slackApiUrl,
    GATE_SMTP_URL: s.smtpUrl,
    GATE_EMAIL_FROM: s.emailFrom,
    GATE_TEAMS_WEBHOOKS: s.teamsWebhooks,
    GATE_NOTIFY: s.notify?.join(','),
  };
}

const isHttpUrl = (u: string): boolean => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol);

/** Every problem of the settings, each naming its variable and none showing a secret. */
export function notifyConfigProblems(env: Env): string[] {
  const problems: string[] = [];
  const set = (name: string): boolean => !!env[name]?.trim();
  const channelSettings = ['GATE_SLACK_BOT_TOKEN', 'GATE_SMTP_URL', 'GATE_TEAMS_WEBHOOKS', 'GATE_NOTIFY'].filter(set);
  if (set('GATE_PUBLIC_URL')) {
    if (!isHttpUrl(env.GATE_PUBLIC_URL!.trim())) problems.push('GATE_PUBLIC_URL is not an http(s) URL');
  } else if (channelSettings.length > 0)
    problems.push(
      `${channelSettings.join(', ')} ${channelSettings.length === 1 ? 'is' : 'are'} set but GATE_PUBLIC_URL is not: every message links to the reviewer page there`,
    );
  if (set('GATE_SLACK_API_URL') && !isHttpUrl(env.GATE_SLACK_API_URL!.trim()))
    problems.push('GATE_SLACK_API_URL is not an http(s) URL');
  if (set('GATE_SMTP_URL')) {
    const u = env.GATE_SMTP_URL!.trim();
    // Never show the value: it carries the SMTP password.
    if (!URL.canParse(u) || !/^smtps?:$/.test(new URL(u).protocol) || !new URL(u).hostname)
      problems.push('GATE_SMTP_URL is not an smtp:// or smtps:// URL (smtp://user:password@host:587)');
    if (!set('GATE_EMAIL_FROM')) problems.push('GATE_SMTP_URL is set but GATE_EMAIL_FROM is not');
  }
  if (set('GATE_EMAIL_FROM') && targetProblem(`email:${env.GATE_EMAIL_FROM!.trim()}`))
    problems.push('GATE_EMAIL_FROM is not an email address');
  if (set('GATE_TEAMS_WEBHOOKS')) {
    const parts = env.GATE_TEAMS_WEBHOOKS!.split(',').filter((p) => p.trim());
    parts.forEach((p, i) => {
      const at = p.indexOf('=');
      const name = at > 0 ? p.slice(0, at).trim() : '';
      if (!name) problems.push(`GATE_TEAMS_WEBHOOKS entry ${i + 1} is not name=url`);
      else if (!isHttpUrl(p.slice(at + 1).trim()))
        problems.push(`GATE_TEAMS_WEBHOOKS: the URL of "${name}" is not an http(s) URL`);
    });
  }
  for (const target of notifyTargets(env.GATE_NOTIFY)) {
    const why = targetProblem(target) ?? missingChannelSetting(target, env);
    // The public URL's absence is reported once above.
    if (why && !why.includes('GATE_PUBLIC_URL is not set')) problems.push(`GATE_NOTIFY ${why}`);
  }
  return problems;
}

/**
 * Refuses notification settings that cannot work, before anything starts: a channel setting
 * without GATE_PUBLIC_URL, a malformed URL, a GATE_NOTIFY target whose channel is not
 * configured (naming the missing setting). Throws ConfigurationError listing every problem.
 */
export function checkNotifyConfig(env: Env): void {
  const problems = notifyConfigProblems(env);
  if (problems.length > 0) throw new ConfigurationError(`notification settings: ${problems.join('; ')}`);
}

/** Reads and checks the notification settings (throws as checkNotifyConfig). */
export function notifySettingsFrom(env: Env): NotifySettings {
  checkNotifyConfig(env);
  const v = (name: string): string | undefined => env[name]?.trim() || undefined;
  return {
    publicUrl: v('GATE_PUBLIC_URL'),
    slackBotToken: v('GATE_SLACK_BOT_TOKEN'),
    slackApiUrl: v('GATE_SLACK_API_URL') ?? DEFAULT_SLACK_API_URL,
    smtpUrl: v('GATE_SMTP_URL'),
    emailFrom: v('GATE_EMAIL_FROM'),
    teamsWebhooks: v('GATE_TEAMS_WEBHOOKS'),
    notify: notifyTargets(env.GATE_NOTIFY),
  };
}
