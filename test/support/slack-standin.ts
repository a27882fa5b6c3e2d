import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { notifySettingsFrom, type NotifySettings } from '../../src/notify/config';

// A local Slack Web API for tests: `chat.postMessage` and `chat.update` as Slack documents
// them (https://docs.slack.dev/reference/methods/chat.postMessage): a POST to
// `<base>/<method>` with a form or JSON body and `Authorization: Bearer <token>`, always
// HTTP 200 with `{ ok, ... }` except when refusing with HTTP 500. Point a WebClient's
// `slackApiUrl` (GATE_SLACK_API_URL) at `url`.

/** One message as Slack now holds it: `chat.update` edits it in place. */
export interface SlackStandinMessage {
  /** The channel id the message is in (a `#name` or user id posted to is resolved to one). */
  channel: string;
  /** What the poster named: `#name`, a channel id or a user id. */
  posted_to: string;
  ts: string;
  text?: string;
  blocks?: unknown[];
  /** How many `chat.update` calls changed it. */
  edits: number;
  /** Every version, first the posted one. */
  versions: { text?: string; blocks?: unknown[] }[];
}

/** Every call the stand-in received, refused or not. */
export interface SlackStandinCall {
  method: string;
  /** The bearer token sent (tests check which token was used). */
  token?: string;
  contentType: string;
  args: Record<string, unknown>;
  /** What the stand-in answered: the HTTP status and body. */
  status: number;
  answer: Record<string, unknown>;
}

/**
 * How a refusing stand-in answers: HTTP 500, HTTP 200 `{ ok: false, error: 'fatal_error' }`,
 * or HTTP 429 with `Retry-After: 5` (Slack's rate limit).
 */
export type SlackRefusal = 'http_500' | 'fatal_error' | 'rate_limited';

export interface SlackStandin {
  /** The Web API base URL, ending in `/api/` as Slack's does. */
  url: string;
  /** The bot token it accepts; any other answers `invalid_auth`. */
  token: string;
  messages: SlackStandinMessage[];
  calls: SlackStandinCall[];
  /** Refuse every call from now on (a mode), or accept again (false). */
  refuse(mode: SlackRefusal | false): void;
  /** The message in `channel` with `ts`, if any. */
  message(channel: string, ts: string): SlackStandinMessage | undefined;
  close(): Promise<void>;
}

/** A stable channel id for a name, as Slack gives each channel one (`C` + 10 characters). */
function channelId(name: string): string {
  if (/^[CGD][A-Z0-9]{6,}$/.test(name)) return name;
  const hex = createHash('sha256').update(name).digest('hex').slice(0, 10).toUpperCase();
  // A user id (U…, W…) posted to lands in the app's direct-message channel with that user.
  return (/^[UW][A-Z0-9]{6,}$/.test(name) ? 'D' : 'C') + hex;
}

function parseBody(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.startsWith('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    // The Web API takes structured arguments (blocks, attachments) as JSON strings in form bodies.
    args[k] = (k === 'blocks' || k === 'attachments') && v.startsWith('[') ? (JSON.parse(v) as unknown) : v;
  }
  return args;
}

/** Starts the stand-in on a free loopback port. */
export async function startSlackStandin(opts: { token?: string } = {}): Promise<SlackStandin> {
  const token = opts.token ?? 'xoxb-standin-0000-test';
  const messages: SlackStandinMessage[] = [];
  const calls: SlackStandinCall[] = [];
  let refusal: SlackRefusal | false = false;
  let clock = 1_700_000_000_000_000; // microseconds: ts values are "seconds.micros" and unique per message

  const answerFor = (method: string, args: Record<string, unknown>, bearer: string | undefined) => {
    if (refusal === 'http_500') return { status: 500, answer: { ok: false, error: 'internal_error' } };
    if (refusal === 'fatal_error') return { status: 200, answer: { ok: false, error: 'fatal_error' } };
    if (refusal === 'rate_limited') return { status: 429, answer: { ok: false, error: 'ratelimited' } };
    const sent = bearer ?? (typeof args.token === 'string' ? args.token : undefined);
    if (!sent) return { status: 200, answer: { ok: false, error: 'not_authed' } };
    if (sent !== token) return { status: 200, answer: { ok: false, error: 'invalid_auth' } };
    const text = typeof args.text === 'string' ? args.text : undefined;
    const blocks = Array.isArray(args.blocks) ? args.blocks : undefined;
    if (!text && !blocks) return { status: 200, answer: { ok: false, error: 'no_text' } };
    if (method === 'chat.postMessage') {
      if (typeof args.channel !== 'string' || !args.channel)
        return { status: 200, answer: { ok: false, error: 'channel_not_found' } };
      clock += 1;
      const ts = `${Math.floor(clock / 1e6)}.${String(clock % 1e6).padStart(6, '0')}`;
      const channel = channelId(args.channel.replace(/^#/, ''));
      const m: SlackStandinMessage = {
        channel,
        posted_to: args.channel,
        ts,
        text,
        blocks,
        edits: 0,
        versions: [{ text, blocks }],
      };
      messages.push(m);
      return { status: 200, answer: { ok: true, channel, ts, message: { type: 'message', text, blocks, ts } } };
    }
    if (method === 'chat.update') {
      if (typeof args.channel !== 'string' || !/^[CGD]/.test(args.channel))
        return { status: 200, answer: { ok: false, error: 'channel_not_found' } };
      const m = messages.find((x) => x.channel === args.channel && x.ts === args.ts);
      if (!m) return { status: 200, answer: { ok: false, error: 'message_not_found' } };
      m.text = text;
      m.blocks = blocks;
      m.edits += 1;
      m.versions.push({ text, blocks });
      return { status: 200, answer: { ok: true, channel: m.channel, ts: m.ts, text, message: { text, blocks } } };
    }
    return { status: 200, answer: { ok: false, error: 'unknown_method' } };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^.*\/api\//, '').split('?')[0] ?? '';
      const contentType = String(req.headers['content-type'] ?? '');
      const auth = req.headers.authorization;
      const bearer = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
      let args: Record<string, unknown>;
      try {
        args = parseBody(Buffer.concat(chunks).toString(), contentType);
      } catch {
        args = {};
      }
      const { status, answer } =
        req.method === 'POST'
          ? answerFor(method, args, bearer)
          : { status: 200, answer: { ok: false, error: 'invalid_request' } };
      const { token: _t, ...shownArgs } = args;
      calls.push({
        method,
        token: bearer ?? (typeof _t === 'string' ? _t : undefined),
        contentType,
        args: shownArgs,
        status,
        answer,
      });
      res
        .writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          ...(status === 429 ? { 'retry-after': '5' } : {}),
        })
        .end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/`,
    token,
    messages,
    calls,
    refuse: (mode) => void (refusal = mode),
    message: (channel, ts) => messages.find((m) => m.channel === channel && m.ts === ts),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A worker's environment for Slack at `slack` (a spawned worker's `env`), with `notify` as its GATE_NOTIFY. */
export function slackEnv(slack: SlackStandin, notify?: string): Record<string, string> {
  return {
    GATE_PUBLIC_URL: 'https://gate.example.test',
    GATE_SLACK_BOT_TOKEN: slack.token,
    GATE_SLACK_API_URL: slack.url,
    ...(notify ? { GATE_NOTIFY: notify } : {}),
  };
}

/** A worker's notification settings: Slack at `slack`, and `notify` as its GATE_NOTIFY. */
export function slackDefaults(slack: SlackStandin, notify: string): NotifySettings {
  return notifySettingsFrom(slackEnv(slack, notify));
}
