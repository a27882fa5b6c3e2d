// The contract between a gate and the channels that tell reviewers about it (Slack,
// email, Teams; docs/notifications.md). Pure: the workflow bundle imports it.

/** The channels a notification target can name. */
export type NoticeChannel = 'slack' | 'email' | 'teams';

/** Which moment of a gate a notice tells about. */
export type NoticeKind = 'requested' | 'escalated' | 'ended';

/** What every message shows: the facts of the gate when the notice was decided on. */
export interface NoticeFacts {
  request_id: string;
  tenant?: string;
  summary: string;
  action: string;
  target: string;
  agent_id: string;
  /** The evidence's `blast_radius`, as the creator sent it. */
  blast_radius?: unknown;
  /** ISO time the gate expires (fails closed). */
  expires_at: string;
  payload_sha256: string;
  /** The gate's status when the notice was decided on. */
  status: string;
  approvals: number;
  approvals_required: number;
  /** ISO time the gate decided to send the notice (workflow time): "time left" is counted from it. */
  sent_at: string;
  /** Escalated notices: the level (1-based), the loop (0 for the first pass) and the roles it added. */
  level?: number;
  loop?: number;
  roles_added?: string[];
  /** Ended notices: how the gate ended, by whom and when. */
  outcome?: { status: string; by?: string; at: string; reason?: string };
}

/** Where an earlier message for the same gate and target went, so a later one can edit or thread it. */
export interface NoticeThread {
  /** Slack: the channel id and message `ts` of `chat.postMessage`, for `chat.update`. */
  slack?: { channel: string; ts: string };
  /** Email: the first message's `Message-ID`, for `In-Reply-To` and `References`. */
  email?: { message_id: string };
}

/** Input of the `deliverNotice` activity: one message to one target. */
export interface DeliverNoticeInput {
  /** Stable across retries and executions: `<request_id>:<kind>:<level>:<loop>:<target>`. */
  notice_id: string;
  /** `slack:#channel`, `slack:@member`, `email:address` or `teams:<name>`. */
  target: string;
  kind: NoticeKind;
  facts: NoticeFacts;
  /** Set on `ended` notices to a target that was sent one before. */
  thread?: NoticeThread;
}

/** What the activity did: where the message went (kept in the gate's state for the ended notice). */
export interface DeliverNoticeResult {
  target: string;
  channel: NoticeChannel;
  thread?: NoticeThread;
}

/** Failure types `deliverNotice` throws. */
export const NoticeFailureType = {
  /** The channel refused or could not be reached: retryable within the delivery's 60 seconds. */
  DeliveryFailed: 'NotificationDeliveryFailed',
  /** The target names a channel this worker has not configured: non-retryable. */
  Misconfigured: 'NotificationMisconfigured',
} as const;

/** The channel a target names. */
export function noticeChannel(target: string): NoticeChannel | undefined {
  const c = target.slice(0, target.indexOf(':'));
  return c === 'slack' || c === 'email' || c === 'teams' ? c : undefined;
}

/** The reviewer page's link for a request: the only link any message carries. */
export function reviewUrl(publicUrl: string, requestId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/#/approvals/${encodeURIComponent(requestId)}`;
}

/** The Teams webhooks by name, from `GATE_TEAMS_WEBHOOKS` (`name=url,...`). */
export function teamsWebhooks(setting: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (setting ?? '').split(',')) {
    const at = part.indexOf('=');
    if (at > 0) out.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return out;
}

/**
 * Why a target cannot be delivered with these settings, naming the setting that is
 * missing; undefined when it can. Used by startup and by the create checks alike.
 */
export function missingChannelSetting(target: string, env: Record<string, string | undefined>): string | undefined {
  const channel = noticeChannel(target);
  if (channel === undefined)
    return `${target}: not a notification target (slack:#channel, slack:@member, email:address, teams:<name>)`;
  if (!env.GATE_PUBLIC_URL)
    return `${target}: GATE_PUBLIC_URL is not set (every message links to the reviewer page there)`;
  if (channel === 'slack' && !env.GATE_SLACK_BOT_TOKEN) return `${target}: GATE_SLACK_BOT_TOKEN is not set`;
  if (channel === 'email' && !env.GATE_SMTP_URL) return `${target}: GATE_SMTP_URL is not set`;
  if (channel === 'email' && !env.GATE_EMAIL_FROM) return `${target}: GATE_EMAIL_FROM is not set`;
  if (channel === 'teams' && !teamsWebhooks(env.GATE_TEAMS_WEBHOOKS).has(target.slice('teams:'.length)))
    return `${target}: GATE_TEAMS_WEBHOOKS has no webhook named "${target.slice('teams:'.length)}"`;
  return undefined;
}
