import { timingSafeEqual } from 'node:crypto';
import { brandErrorClass, RefusedError } from '../common/errors';
import { webhookSigner } from './sign';

/**
 * A delivery that must not be trusted: bad or missing signature, missing headers, a
 * stale or future timestamp, or a body that is not an event. Answer it with 4xx and
 * do not act on it.
 */
export class WebhookVerificationError extends RefusedError {}
brandErrorClass(WebhookVerificationError, 'WebhookVerificationError');

/** The body of every approval-gate webhook. */
export interface WebhookEvent {
  /** `approval.requested`, `approval.approved`… */
  type: string;
  /** When the event happened (ISO 8601 UTC); not the delivery time. */
  timestamp: string;
  /** Request fields (request_id, status, action, target…) and the audit event's actor and note. */
  data: Record<string, unknown>;
}

export interface VerifyWebhookOptions {
  /** Largest distance in seconds between `webhook-timestamp` and now, either way. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock; default the current time. */
  now?: Date;
}

type HeaderValue = string | string[] | undefined;

/** Reads one header case-insensitively; several values of one header are joined by spaces. */
function header(headers: Record<string, HeaderValue>, name: string): string | undefined {
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    values.push(...(Array.isArray(value) ? value : [value]));
  }
  const joined = values
    .map((v) => v.trim())
    .filter(Boolean)
    .join(' ');
  return joined === '' ? undefined : joined;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Verifies a Standard Webhooks delivery from approval-gate and returns its parsed body.
 * Pass the raw body exactly as received (before any JSON parsing) and the request
 * headers (names in any case). The signature math is the `standardwebhooks`
 * library's; the timestamp window is checked here because the library's is fixed at
 * five minutes. Deduplicate on the `webhook-id` header afterwards: delivery is at least once.
 *
 * Throws WebhookVerificationError for a missing header, a bad signature, a timestamp
 * further than `toleranceSeconds` from `now`, or a body that is not an event; throws
 * TypeError when `secret` or the options are malformed (a receiver's configuration bug).
 */
export function verifyWebhook(
  secret: string,
  rawBody: string | Buffer,
  headers: Record<string, HeaderValue>,
  opts: VerifyWebhookOptions = {},
): WebhookEvent {
  const tolerance = opts.toleranceSeconds ?? 300;
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new TypeError('toleranceSeconds must be a non-negative number');
  const signer = webhookSigner(secret);

  const id = header(headers, 'webhook-id');
  const stamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const missing = [!id && 'webhook-id', !stamp && 'webhook-timestamp', !signatures && 'webhook-signature'].filter(
    Boolean,
  );
  if (!id || !stamp || !signatures) throw new WebhookVerificationError(`missing header ${missing.join(', ')}`);

  if (!/^\d{1,12}$/.test(stamp)) throw new WebhookVerificationError('webhook-timestamp is not integer unix seconds');
  const sentAt = Number(stamp);
  const nowSeconds = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (nowSeconds - sentAt > tolerance) {
    throw new WebhookVerificationError(
      `stale delivery: webhook-timestamp is ${nowSeconds - sentAt}s old, tolerance is ${tolerance}s`,
    );
  }
  if (sentAt - nowSeconds > tolerance) {
    throw new WebhookVerificationError(
      `webhook-timestamp is ${sentAt - nowSeconds}s in the future, tolerance is ${tolerance}s`,
    );
  }

  // `v1,<base64>`; several space-separated signatures are allowed (secret rotation).
  const expected = signer.sign(id, new Date(sentAt * 1000), rawBody);
  if (!signatures.split(' ').some((s) => safeEqual(s, expected))) {
    throw new WebhookVerificationError('no matching signature: wrong secret, or the body or headers were altered');
  }

  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString());
  } catch (err) {
    throw new WebhookVerificationError('signed body is not JSON', { cause: err });
  }
  if (!isEvent(body))
    throw new WebhookVerificationError('signed body is not an approval-gate event ({ type, timestamp, data })');
  return body;
}

function isEvent(v: unknown): v is WebhookEvent {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.type === 'string' &&
    typeof o.timestamp === 'string' &&
    typeof o.data === 'object' &&
    o.data !== null &&
    !Array.isArray(o.data)
  );
}
