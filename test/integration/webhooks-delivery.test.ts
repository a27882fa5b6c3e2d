import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createWebhookActivities, type WebhookProgress } from '../../src/worker/activities/webhooks';
import type { DeliverWebhooksInput } from '../../src/worker/activities/contracts';
import { generateWebhookSecret, verifyWebhook } from '../../src/webhooks';

// The activity against a real HTTP receiver; Temporal's retries are played by hand:
// each attempt runs in a fresh MockActivityEnvironment carrying the last heartbeat details.

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A local receiver; `answer(n)` gives the status for its n-th delivery (0-based), or null to hang. */
async function startReceiver(answer: (n: number) => number | null) {
  const received: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = answer(received.length);
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), status: status ?? 0 });
      if (status !== null)
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 300 ? 'receiver down' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // including a hanging delivery
      }),
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const secret = generateWebhookSecret();
const input: DeliverWebhooksInput = {
  message_id: 'msg_0b9e2c1e-4d2f-4b43-9a39-2f7c5b1f0a11',
  event_type: 'approval.approved',
  body: {
    type: 'approval.approved',
    timestamp: '2025-01-01T00:00:00.000Z',
    data: { request_id: 'appr_1', status: 'approved' },
  },
};
const quiet = { info: () => undefined, warn: () => undefined };

/** One activity attempt; resolves with its outcome and the last heartbeat details it recorded. */
async function attempt(activities: ReturnType<typeof createWebhookActivities>, n: number, heartbeatDetails?: unknown) {
  const env = new MockActivityEnvironment({ attempt: n, heartbeatDetails }, { logger: new DefaultLogger('ERROR') });
  let details = heartbeatDetails;
  env.on('heartbeat', (d: unknown) => (details = d));
  try {
    return { result: await env.run(activities.deliverWebhooks, input), error: undefined, details };
  } catch (error) {
    return { result: undefined, error: error as ApplicationFailure, details };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('deliverWebhooks', () => {
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('fails retryably while the receiver answers 500, then delivers with one webhook-id and a fresh signature each time', async () => {
    const rx = await startReceiver((n) => (n < 2 ? 500 : 200));
    receivers.push(rx);
    const activities = createWebhookActivities({ urls: [rx.url], secret, logger: quiet });

    const first = await attempt(activities, 1);
    expect(first.error).toBeInstanceOf(ApplicationFailure);
    expect(first.error!.type).toBe('WebhookDeliveryFailed');
    expect(first.error!.nonRetryable).toBe(false);
    expect(first.error!.message).toContain(`${rx.url}: HTTP 500`);
    expect(first.details).toBeUndefined(); // nothing delivered, nothing to skip

    await sleep(1100); // Temporal's first backoff; lets webhook-timestamp move on
    const second = await attempt(activities, 2, first.details);
    expect(second.error?.type).toBe('WebhookDeliveryFailed');
    const third = await attempt(activities, 3, second.details);
    expect(third.error).toBeUndefined();
    expect(third.result).toEqual({ delivered: [rx.url] });

    expect(rx.received.map((d) => d.status)).toEqual([500, 500, 200]);
    expect(new Set(rx.received.map((d) => d.headers['webhook-id']))).toEqual(new Set([input.message_id]));
    expect(Number(rx.received[1]!.headers['webhook-timestamp'])).toBeGreaterThan(
      Number(rx.received[0]!.headers['webhook-timestamp']),
    );
    for (const d of rx.received) {
      expect(d.headers['content-type']).toBe('application/json');
      expect(verifyWebhook(secret, d.body, d.headers)).toEqual(input.body);
    }
  });

  it('with two URLs, reports only the failing one and skips the delivered one on retry', async () => {
    const ok = await startReceiver(() => 200);
    const flaky = await startReceiver((n) => (n === 0 ? 503 : 204));
    receivers.push(ok, flaky);
    const activities = createWebhookActivities({ urls: [ok.url, flaky.url], secret, logger: quiet });

    const first = await attempt(activities, 1);
    expect(first.error?.type).toBe('WebhookDeliveryFailed');
    expect(first.error!.message).toContain(`${flaky.url}: HTTP 503`);
    expect(first.error!.message).not.toContain(ok.url);
    expect(first.details).toEqual({ delivered: [ok.url] } satisfies WebhookProgress);

    const second = await attempt(activities, 2, first.details);
    expect(second.result).toEqual({ delivered: [ok.url, flaky.url] });
    expect(ok.received).toHaveLength(1); // not sent again
    expect(flaky.received.map((d) => d.status)).toEqual([503, 204]);
    for (const d of [...ok.received, ...flaky.received]) {
      expect(d.headers['webhook-id']).toBe(input.message_id);
      expect(verifyWebhook(secret, d.body, d.headers).type).toBe('approval.approved');
    }
  });

  it('retries a 4xx too, since receivers are often briefly misconfigured', async () => {
    const rx = await startReceiver(() => 401);
    receivers.push(rx);
    const { error } = await attempt(createWebhookActivities({ urls: [rx.url], secret, logger: quiet }), 1);
    expect(error?.type).toBe('WebhookDeliveryFailed');
    expect(error?.nonRetryable).toBe(false);
    expect(error?.message).toContain('HTTP 401');
  });

  it('fails retryably when a receiver does not answer within the timeout or cannot be reached', async () => {
    const hang = await startReceiver(() => null);
    const gone = await startReceiver(() => 200);
    receivers.push(hang);
    await gone.close(); // its port now refuses connections
    const activities = createWebhookActivities({ urls: [hang.url, gone.url], secret, timeoutMs: 300, logger: quiet });
    const { error } = await attempt(activities, 1);
    expect(error?.type).toBe('WebhookDeliveryFailed');
    expect(error?.message).toContain(`${hang.url}: network error: timed out after 300 ms`);
    expect(error?.message).toContain(`${gone.url}: network error`);
  });

  it('does nothing without URLs', async () => {
    const fetch = jest.fn<ReturnType<typeof globalThis.fetch>, Parameters<typeof globalThis.fetch>>();
    const { result } = await attempt(createWebhookActivities({ urls: [], fetch }), 1);
    expect(result).toEqual({ delivered: [] });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('fails without retry when URLs are configured without a valid secret', async () => {
    for (const bad of [undefined, 'whsec_c2hvcnQ=']) {
      const { error } = await attempt(createWebhookActivities({ urls: ['http://127.0.0.1:9/hooks'], secret: bad }), 1);
      expect(error?.type).toBe('WebhookMisconfigured');
      expect(error?.nonRetryable).toBe(true);
      expect(error?.message).toMatch(/GATE_WEBHOOK_SECRET/);
    }
  });
});
