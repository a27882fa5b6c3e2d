import { generateWebhookSecret, signWebhook, verifyWebhook, WebhookVerificationError } from '../../src/webhooks';

const secret = generateWebhookSecret();
const body = {
  type: 'approval.approved',
  timestamp: '2025-01-01T00:00:00.000Z',
  data: { request_id: 'appr_1', status: 'approved' },
};
const at = new Date('2025-01-01T00:00:10.000Z');
const signed = signWebhook(secret, { id: 'msg_1', body, timestamp: at });

function expectRefused(fn: () => unknown, message: RegExp): void {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(WebhookVerificationError);
  expect((thrown as Error).name).toBe('WebhookVerificationError');
  expect((thrown as Error).message).toMatch(message);
}

describe('verifyWebhook', () => {
  it('returns the body of a delivery it signed, from a string or a Buffer', () => {
    expect(verifyWebhook(secret, signed.body, { ...signed.headers }, { now: at })).toEqual(body);
    expect(verifyWebhook(secret, Buffer.from(signed.body), { ...signed.headers }, { now: at })).toEqual(body);
  });

  it('signs with the Standard Webhooks headers and the id it was given', () => {
    expect(signed.headers['webhook-id']).toBe('msg_1');
    expect(signed.headers['webhook-timestamp']).toBe(String(at.getTime() / 1000));
    expect(signed.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(signed.body)).toEqual(body);
  });

  it('refuses a tampered body', () => {
    const tampered = signed.body.replace('approved', 'denied');
    expectRefused(() => verifyWebhook(secret, tampered, { ...signed.headers }, { now: at }), /no matching signature/);
  });

  it('refuses a delivery signed with another secret', () => {
    expectRefused(
      () => verifyWebhook(generateWebhookSecret(), signed.body, { ...signed.headers }, { now: at }),
      /no matching signature/,
    );
  });

  it('refuses a changed webhook-id, since the id is part of what is signed', () => {
    expectRefused(
      () => verifyWebhook(secret, signed.body, { ...signed.headers, 'webhook-id': 'msg_2' }, { now: at }),
      /no matching signature/,
    );
  });

  it('refuses a stale delivery older than the tolerance, and accepts one just inside it', () => {
    const later = new Date(at.getTime() + 301_000);
    expectRefused(() => verifyWebhook(secret, signed.body, { ...signed.headers }, { now: later }), /stale/);
    expect(
      verifyWebhook(secret, signed.body, { ...signed.headers }, { now: new Date(at.getTime() + 300_000) }),
    ).toEqual(body);
    expectRefused(
      () =>
        verifyWebhook(
          secret,
          signed.body,
          { ...signed.headers },
          { now: new Date(at.getTime() + 61_000), toleranceSeconds: 60 },
        ),
      /stale/,
    );
  });

  it('refuses a timestamp further in the future than the tolerance', () => {
    const earlier = new Date(at.getTime() - 301_000);
    expectRefused(() => verifyWebhook(secret, signed.body, { ...signed.headers }, { now: earlier }), /future/);
  });

  it('refuses a delivery with a missing header, naming it', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const headers: Record<string, string | undefined> = { ...signed.headers, [name]: undefined };
      expectRefused(
        () => verifyWebhook(secret, signed.body, headers, { now: at }),
        new RegExp(`missing header ${name}`),
      );
    }
  });

  it('refuses a timestamp that is not integer seconds', () => {
    expectRefused(
      () => verifyWebhook(secret, signed.body, { ...signed.headers, 'webhook-timestamp': '1.7e9' }, { now: at }),
      /unix seconds/,
    );
  });

  it('reads header names in any case, and array values', () => {
    const headers = {
      'Webhook-Id': signed.headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': [signed.headers['webhook-timestamp']],
      'webhook-Signature': `v1,bm90LXRoaXMtb25l ${signed.headers['webhook-signature']}`,
    };
    expect(verifyWebhook(secret, signed.body, headers, { now: at })).toEqual(body);
  });

  it('throws a TypeError, not a verification error, for a malformed secret', () => {
    expect(() => verifyWebhook('not-a-secret', signed.body, { ...signed.headers }, { now: at })).toThrow(TypeError);
    expect(() => signWebhook('whsec_c2hvcnQ=', { id: 'x', body: {} })).toThrow(/at least 24/);
  });
});
