import { ApplicationFailure } from '@temporalio/activity';
import { LogLevel, WebClient } from '@slack/web-api';
import { slackMessage } from '../../notify/slack-message';
import type { NoticeSender, SenderDeps } from './sender';

/** Slack errors of chat.update after which the message cannot be edited: a new one is posted instead. */
const GONE = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed']);

function slackError(err: unknown): { code: string; reason: string; retryAfterS?: number } {
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
}

/**
 * Slack over the Web API: chat.postMessage to `#channel` or a member id, and chat.update of
 * that message for an `ended` notice that names it. The client's own retries are off.
 */
export function createSlackSender({ settings: s, timeoutMs, fetch, failed }: SenderDeps): NoticeSender {
  let slack: WebClient | undefined;
  const slackClient = (): WebClient =>
    (slack ??= new WebClient(s.slackBotToken, {
      slackApiUrl: s.slackApiUrl,
      retryConfig: { retries: 0 }, // the activity's retry policy retries, within the workflow's 60 s
      rejectRateLimitedCalls: true, // a 429 fails the attempt instead of sleeping inside it
      timeout: timeoutMs,
      logLevel: LogLevel.ERROR,
      fetch,
    }));

  return async (input, publicUrl) => {
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
  };
}
