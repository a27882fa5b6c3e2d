import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The three Standard Webhooks headers, lower-case as sent. */
export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** Headers of one signed delivery. */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** A signed delivery: the exact body string to send and the headers that sign it. */
export interface SignedWebhook {
  body: string;
  headers: WebhookHeaders;
}

const PREFIX = 'whsec_';
/** The Standard Webhooks spec asks for secrets of at least 24 bytes. */
const MIN_SECRET_BYTES = 24;

/**
 * A `whsec_` secret as the library's signer. Throws a TypeError (a configuration
 * mistake, never a verification failure) when the secret is not `whsec_` + base64 of
 * at least 24 bytes, so a bad `GATE_WEBHOOK_SECRET` fails loudly before any delivery.
 */
export function webhookSigner(secret: string): Webhook {
  const b64 = typeof secret === 'string' && secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : undefined;
  const problem = new TypeError(
    `webhook secret must be "${PREFIX}" followed by the base64 of at least ${MIN_SECRET_BYTES} random bytes (see generateWebhookSecret)`,
  );
  if (!b64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || Buffer.from(b64, 'base64').length < MIN_SECRET_BYTES)
    throw problem;
  try {
    return new Webhook(secret);
  } catch {
    throw problem; // the library's base64 decoder is stricter (padding, length)
  }
}

/** A new random `whsec_` secret (32 bytes), for `GATE_WEBHOOK_SECRET` and its receivers. */
export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/**
 * Signs one delivery in the Standard Webhooks format. The body is `JSON.stringify(body)`
 * and must be sent byte for byte as returned. `id` is the delivery id receivers
 * deduplicate on (keep it across retries); `timestamp` defaults to now, so each retry
 * carries a fresh `webhook-timestamp`. Throws a TypeError for a malformed secret.
 */
export function signWebhook(
  secret: string | Webhook,
  msg: { id: string; body: unknown; timestamp?: Date },
): SignedWebhook {
  const signer = typeof secret === 'string' ? webhookSigner(secret) : secret;
  const body = JSON.stringify(msg.body);
  if (body === undefined) throw new TypeError('webhook body has no JSON form');
  const at = msg.timestamp ?? new Date();
  return {
    body,
    headers: {
      'webhook-id': msg.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signer.sign(msg.id, at, body),
    },
  };
}
