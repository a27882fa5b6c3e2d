import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Webhook } from 'standardwebhooks';
import { signWebhook, webhookSigner, type SignedWebhook } from '../../webhooks/sign';
import type { DeliverWebhooksInput, DeliverWebhooksResult } from './contracts';

/** Failure types `deliverWebhooks` throws. */
export const WebhookFailureType = {
  /** A receiver answered non-2xx or could not be reached: retryable, Temporal backs off. */
  DeliveryFailed: 'WebhookDeliveryFailed',
  /** URLs without a valid secret, or a malformed URL: non-retryable, fix the configuration. */
  Misconfigured: 'WebhookMisconfigured',
} as const;
export type WebhookFailureType = (typeof WebhookFailureType)[keyof typeof WebhookFailureType];

/** Pino-style logger (`logger.warn({ url }, 'msg')`); default the activity context's logger. */
export interface WebhookLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface WebhookActivityDeps {
  /** Receivers (`GATE_WEBHOOK_URLS`); none makes delivery a no-op. */
  urls: string[];
  /** `GATE_WEBHOOK_SECRET` (`whsec_…`); required as soon as there is a URL. */
  secret?: string;
  /** Injected for tests; default the global fetch. */
  fetch?: typeof fetch;
  /** Per-POST timeout, body included. Default 10 000 ms. */
  timeoutMs?: number;
  logger?: WebhookLogger;
}

/** Heartbeat details: the URLs that already took this message on an earlier attempt. */
export interface WebhookProgress {
  delivered: string[];
}

/** A URL without credentials or query string, safe for errors and logs. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '<malformed url>';
  }
}

function configProblem(urls: string[], secret: string | undefined): { problem?: string; signer?: Webhook } {
  if (urls.length === 0) return {};
  const bad = urls.filter((u) => !URL.canParse(u) || !/^https?:$/.test(new URL(u).protocol));
  if (bad.length > 0)
    return {
      problem: `GATE_WEBHOOK_URLS has ${bad.length} entr${bad.length === 1 ? 'y' : 'ies'} that are not http(s) URLs`,
    };
  if (!secret)
    return {
      problem:
        'GATE_WEBHOOK_URLS is set but GATE_WEBHOOK_SECRET is not: set a whsec_ secret (receivers verify with it) or unset the URLs',
    };
  try {
    return { signer: webhookSigner(secret) };
  } catch (err) {
    return { problem: `GATE_WEBHOOK_SECRET: ${(err as Error).message}` };
  }
}

function carriedOver(details: unknown, urls: string[]): Set<string> {
  const list = (details as Partial<WebhookProgress> | undefined)?.delivered;
  return new Set(Array.isArray(list) ? list.filter((u): u is string => typeof u === 'string' && urls.includes(u)) : []);
}

/**
 * Webhook delivery for the approvalGate workflow (docs/http-api.md, Webhooks): each lifecycle
 * event is POSTed, signed in the Standard Webhooks format, to every configured URL,
 * at least once. Configuration problems surface as a non-retryable failure in the
 * gate's history rather than at worker start, so a worker without webhooks runs.
 */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  const urls = [...new Set(deps.urls)];
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const { problem, signer } = configProblem(urls, deps.secret);

  /** One POST; null on 2xx, else why it failed. */
  const post = async (url: string, signed: SignedWebhook, cancelled: AbortSignal): Promise<string | null> => {
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    const onCancel = (): void => ctrl.abort(new Error('activity cancelled'));
    cancelled.addEventListener('abort', onCancel, { once: true });
    try {
      const res = await (deps.fetch ?? fetch)(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'approval-gate-webhooks', ...signed.headers },
        body: signed.body,
        signal: ctrl.signal,
        redirect: 'manual', // a redirect is a receiver misconfiguration, not a delivery
      });
      const text = await res.text().catch(() => ''); // drain, so the connection is reused
      return res.ok ? null : `HTTP ${res.status}${text ? ` ${JSON.stringify(text.slice(0, 200))}` : ''}`;
    } catch (err) {
      const reason = ctrl.signal.aborted ? ctrl.signal.reason : err;
      return `network error: ${reason instanceof Error ? reason.message : String(reason)}`;
    } finally {
      clearTimeout(timer);
      cancelled.removeEventListener('abort', onCancel);
    }
  };

  return {
    /**
     * POSTs one event to every URL not yet done for this message. Successes are kept in
     * heartbeat details, so a retry skips them; each attempt re-signs with a fresh
     * `webhook-timestamp` and the same `webhook-id` (= message_id).
     *
     * Throws a retryable `WebhookDeliveryFailed` naming each failed URL and status. Every
     * non-2xx is retried, 4xx included (not only 408/409/429): receivers are often
     * briefly misconfigured (a deploy, a rotated secret), and the retry policy bounds
     * the attempts anyway. Throws a non-retryable `WebhookMisconfigured` when URLs are
     * set without a valid secret.
     */
    async deliverWebhooks(input: DeliverWebhooksInput): Promise<DeliverWebhooksResult> {
      if (urls.length === 0) return { delivered: [] };
      if (problem || !signer)
        throw ApplicationFailure.nonRetryable(problem ?? 'no webhook signer', WebhookFailureType.Misconfigured);
      const ctx = Context.current();
      const log = deps.logger ?? { info: (o, m) => ctx.log.info(m, o), warn: (o, m) => ctx.log.warn(m, o) };
      const done = carriedOver(ctx.info.heartbeatDetails, urls);
      const signed = signWebhook(signer, { id: input.message_id, body: input.body });
      const failures: { url: string; reason: string }[] = [];

      await Promise.all(
        urls
          .filter((u) => !done.has(u))
          .map(async (url) => {
            const reason = await post(url, signed, ctx.cancellationSignal);
            if (reason) {
              failures.push({ url: shown(url), reason });
              return;
            }
            done.add(url);
            ctx.heartbeat({ delivered: urls.filter((u) => done.has(u)) } satisfies WebhookProgress); // durable progress
          }),
      );
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
      const meta = { message_id: input.message_id, event_type: input.event_type, attempt: ctx.info.attempt };
      if (failures.length > 0) {
        log.warn({ ...meta, failures }, 'webhook delivery failed; Temporal retries it');
        throw ApplicationFailure.retryable(
          `webhook ${input.event_type} (${input.message_id}) not delivered to ${failures.map((f) => `${f.url}: ${f.reason}`).join('; ')}`,
          WebhookFailureType.DeliveryFailed,
          { failures, delivered: [...done].map(shown) },
        );
      }
      log.info({ ...meta, urls: urls.length }, 'webhook delivered');
      return { delivered: urls };
    },
  };
}
