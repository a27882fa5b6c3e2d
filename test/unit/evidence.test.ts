import { createHash } from 'node:crypto';
import {
  CreateApprovalBody,
  EvidencePayload,
  MAX_PAYLOAD_BYTES,
  checkPayload,
  defaultIdempotencyKey,
  payloadSha256,
  requestIdFor,
} from '../../src/common/evidence';
import { canonicalJson, digest, sha256Hex, utf8Length } from '../../src/common/hashing';
import { findSecrets, isSecretKey } from '../../src/common/secrets';

/** The seed's refund example (approval-gate-state-machine.txt) shaped as a create body:
 * the server fills request_id, so it is dropped; trigger_event_id, which the seed lists
 * as a field but leaves out of its example, is added. */
const refundCreateBody = {
  correlation_id: 'corr_01HZX87K9B12M',
  agent_id: 'avs_live_agent_billing_prod',
  trigger_event_id: 'ticket_4081',
  action: 'stripe.refund.create',
  target: 'ch_3MvICBLkdIwHu7ix0Yx87a11',
  summary: 'Full refund for damaged shipment per ticket #4081',
  blast_radius: { currency: 'usd', amount_cents: 14500 },
  args: { charge: 'ch_3MvICBLkdIwHu7ix0Yx87a11', amount: 14500, reason: 'fraudulent', refund_application_fee: false },
  preconditions: { account_status: 'active', max_allowed_drift_seconds: 120 },
};

function fullPayload(args: Record<string, unknown> = refundCreateBody.args): EvidencePayload {
  return EvidencePayload.parse({
    ...refundCreateBody,
    args,
    request_id: 'appr_9824bf20a1',
    idempotency_key: 'k',
    expires_at: '2030-01-01T00:00:00.000Z',
  });
}

function issuePaths(r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }): string[] {
  return (r.error?.issues ?? []).map((i) => i.path.join('.'));
}

describe('CreateApprovalBody', () => {
  it("accepts the seed's refund example and fills the defaults", () => {
    const r = CreateApprovalBody.safeParse(refundCreateBody);
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ approvals_required: 1, executor: 'external', consume_ttl_seconds: 3600 });
  });

  it('accepts a summary of exactly 120 characters', () => {
    expect(CreateApprovalBody.safeParse({ ...refundCreateBody, summary: 's'.repeat(120) }).success).toBe(true);
  });

  it.each([
    { name: 'a summary of 121 characters', patch: { summary: 's'.repeat(121) }, path: 'summary' },
    { name: 'an empty summary', patch: { summary: '' }, path: 'summary' },
    { name: 'action "Refund" (capitalised, not namespaced)', patch: { action: 'Refund' }, path: 'action' },
    { name: 'action "refund" (not namespaced)', patch: { action: 'refund' }, path: 'action' },
    { name: 'action "Refund.Create" (upper case)', patch: { action: 'Refund.Create' }, path: 'action' },
    { name: 'action "refund..create" (empty segment)', patch: { action: 'refund..create' }, path: 'action' },
    { name: 'action "refund.create." (trailing dot)', patch: { action: 'refund.create.' }, path: 'action' },
    { name: 'action "refund create" (space)', patch: { action: 'refund create' }, path: 'action' },
    {
      name: 'a fractional blast radius amount',
      patch: { blast_radius: { amount_cents: 145.5 } },
      path: 'blast_radius.amount_cents',
    },
    {
      name: 'a blast radius amount beyond safe integers',
      patch: { blast_radius: { rows: 2 ** 60 } },
      path: 'blast_radius.rows',
    },
    { name: 'a boolean blast radius value', patch: { blast_radius: { scopes: true } }, path: 'blast_radius.scopes' },
    { name: 'args that are not an object', patch: { args: ['charge'] }, path: 'args' },
    { name: 'a missing trigger_event_id', patch: { trigger_event_id: undefined }, path: 'trigger_event_id' },
    { name: 'approvals_required 0', patch: { approvals_required: 0 }, path: 'approvals_required' },
    { name: 'approvals_required 1.5', patch: { approvals_required: 1.5 }, path: 'approvals_required' },
    { name: 'ttl_seconds 0', patch: { ttl_seconds: 0 }, path: 'ttl_seconds' },
    { name: 'an unknown executor', patch: { executor: 'human' }, path: 'executor' },
    { name: 'a non-ISO expires_at', patch: { expires_at: 'tomorrow' }, path: 'expires_at' },
  ])('refuses $name', ({ patch, path }) => {
    const r = CreateApprovalBody.safeParse({ ...refundCreateBody, ...patch });
    expect(r.success).toBe(false);
    expect(issuePaths(r)).toContain(path);
  });

  it.each(['request_id', 'payload_sha256', 'idempotency_key', 'status', 'approved'])(
    'refuses the unknown top-level field %s (strict)',
    (field) => {
      const r = CreateApprovalBody.safeParse({ ...refundCreateBody, [field]: 'x' });
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.code).toBe('unrecognized_keys');
    },
  );

  // Documented behaviour: blast_radius also takes short strings (the seed's `currency: "usd"`),
  // so an amount sent as a string is not caught by the integer rule.
  it('accepts short unit labels such as a currency in blast_radius', () => {
    expect(
      CreateApprovalBody.safeParse({
        ...refundCreateBody,
        blast_radius: { currency: 'usd', amount_cents: 0, rows: -1 },
      }).success,
    ).toBe(true);
  });
});

describe('checkPayload: size', () => {
  /** A payload whose canonical JSON is exactly `bytes` long, padded with `fill` in args.note. */
  function payloadOfBytes(bytes: number, fill: string): EvidencePayload {
    const base = utf8Length(canonicalJson(fullPayload({ ...refundCreateBody.args, note: '' })));
    const per = utf8Length(fill);
    const count = Math.floor((bytes - base) / per);
    const rest = bytes - base - count * per; // topped up with ASCII
    const p = fullPayload({ ...refundCreateBody.args, note: fill.repeat(count) + 'x'.repeat(rest) });
    expect(utf8Length(canonicalJson(p))).toBe(bytes);
    return p;
  }

  it('accepts the seed example', () => {
    expect(checkPayload(fullPayload())).toBeNull();
  });

  it.each([
    { fill: 'x', label: 'ASCII' },
    { fill: 'é', label: '2-byte characters' },
    { fill: '한', label: '3-byte characters' },
    { fill: '😀', label: '4-byte characters' },
  ])('accepts exactly 64 KB and refuses one byte more ($label)', ({ fill }) => {
    expect(checkPayload(payloadOfBytes(MAX_PAYLOAD_BYTES, fill))).toBeNull();
    const over = checkPayload(payloadOfBytes(MAX_PAYLOAD_BYTES + 1, fill));
    expect(over?.code).toBe('payload_too_large');
    expect(over?.message).toContain(String(MAX_PAYLOAD_BYTES + 1));
  });

  it('counts bytes, not characters: a payload under 64 K characters but over 64 KB is refused', () => {
    const p = fullPayload({ note: 'é'.repeat(40_000) });
    expect(canonicalJson(p).length).toBeLessThan(MAX_PAYLOAD_BYTES);
    expect(checkPayload(p)?.code).toBe('payload_too_large');
  });

  it('measures canonical JSON, so insignificant whitespace in what was sent does not count', () => {
    const p = payloadOfBytes(MAX_PAYLOAD_BYTES, 'x');
    expect(JSON.stringify(p, null, 2).length).toBeGreaterThan(MAX_PAYLOAD_BYTES);
    expect(checkPayload(p)).toBeNull();
  });
});

describe('secrets', () => {
  it.each([
    'password',
    'PASSWORD',
    'db_password',
    'api_key',
    'apiKey',
    'APIKey',
    'API_KEY',
    'x-api-key',
    'clientSecret',
    'client_secret',
    'Authorization',
    'access_token',
    'refresh_token',
    'authToken',
    'private_key',
    'card_number',
    'cardNumber',
    'cvv',
    'credentials',
    // Decided by the implementation: `token` as a whole word marks a key, so `token_count` is
    // refused (fail closed), while the plural in `max_tokens` is not the word `token`.
    'token_count',
  ])('treats the key %s as a secret', (key) => {
    expect(isSecretKey(key)).toBe(true);
    expect(findSecrets({ args: { [key]: 'value' } })).toEqual([`$.args.${key}`]);
  });

  it.each([
    'max_tokens',
    'idempotency_key',
    'tokens',
    'tokenizer',
    'secretary',
    'author',
    'keyboard',
    'amount_cents',
    'key',
    'card_last4',
    'description',
  ])('does not treat the key %s as a secret', (key) => {
    expect(isSecretKey(key)).toBe(false);
    expect(findSecrets({ [key]: 'value' })).toEqual([]);
  });

  it.each([
    { name: 'a Luhn-valid 16-digit string', value: '4111111111111111' },
    { name: 'the same grouped by spaces', value: '4111 1111 1111 1111' },
    { name: 'the same grouped by dashes', value: '4111-1111-1111-1111' },
    { name: 'the same inside text', value: 'charge card 4111 1111 1111 1111 exp 12/30' },
    { name: 'the same as a JSON number', value: 4111111111111111 },
    { name: 'a 15-digit Amex test number', value: '378282246310005' },
    { name: 'a 16-digit Mastercard test number as a number', value: 5555555555554444 },
  ])('refuses $name as card-number-like', ({ value }) => {
    expect(findSecrets({ note: value })).toEqual(['$.note']);
  });

  it.each([
    { name: 'a non-Luhn 16-digit order number', value: '4111111111111112' },
    { name: 'the same as a number', value: 4111111111111112 },
    { name: 'a 12-digit number', value: '411111111111' },
    { name: 'a phone number', value: '+1 415 555 0100' },
    { name: 'a date-time', value: '2030-01-01T00:00:00.000Z' },
    { name: 'a non-integer number', value: 4111.111111111111 },
    { name: 'a hex digest', value: 'a'.repeat(8) + '4111111111111111' + 'b'.repeat(40) },
  ])('accepts $name', ({ value }) => {
    expect(findSecrets({ note: value })).toEqual([]);
  });

  it.each([
    { name: 'a bearer token', value: 'Bearer abcDEF123456789' },
    { name: 'an Authorization header value', value: 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig' },
    { name: 'an sk- key', value: 'sk-abcdefghijklmnopqrstuvwx' },
    { name: 'an sk- key inside text', value: 'use sk-ABCDEFGHIJKLMNOPQRST for the call' },
    { name: 'a GitHub token', value: 'ghp_' + 'a1'.repeat(18) },
    { name: 'an AWS access key id', value: 'AKIAIOSFODNN7EXAMPLE' },
    { name: 'a Slack token', value: 'xoxb-1234567890-abcdef' },
  ])('refuses $name', ({ value }) => {
    expect(findSecrets({ header: value })).toEqual(['$.header']);
  });

  it.each([
    { name: 'the word Bearer alone', value: 'Bearer' },
    { name: 'a short sk- word', value: 'sk-short' },
    { name: 'a task id containing "sk-"', value: 'task-abcdefghijklmnopqrstuvwx' },
    { name: 'a risk label containing "sk-"', value: 'risk-abcdefghijklmnopqrstuvwx' },
  ])('accepts $name', ({ value }) => {
    expect(findSecrets({ header: value })).toEqual([]);
  });

  // Regression (fixed): TOKEN_LIKE's `sk-[A-Za-z0-9]{16,}` stops at the first dash after the prefix, so
  // today's OpenAI project keys and Anthropic keys are not recognised.
  it.each([
    { name: 'an OpenAI project key', value: 'sk-proj-' + 'Ab1'.repeat(20) },
    { name: 'an Anthropic key', value: 'sk-ant-api03-' + 'Ab1'.repeat(20) + '-xyzAA' },
  ])('refuses $name', ({ value }) => {
    expect(findSecrets({ header: value })).toEqual(['$.header']);
  });

  // Regression (fixed): looksLikeCard tests only the first 13-19 digit run of a string; a card number after
  // an order number (or any other long digit run) is missed.
  it.each(['order 1234567890123 paid with 4111111111111111', '1234 5678 9012 3456 / 4111 1111 1111 1111'])(
    'refuses a card number that follows another long digit run: %s',
    (value) => {
      expect(findSecrets({ note: value })).toEqual(['$.note']);
    },
  );

  it('reports nested paths, array indexes, and every secret once', () => {
    const value = {
      args: {
        card: { number: '4111 1111 1111 1111', holder: 'A. Person' },
        items: [{ sku: 'a' }, { api_key: 'k' }],
        auth: { password: { nested: 'not visited' } },
        headers: ['Accept: json', 'Bearer abcdefghijklmnop'],
      },
    };
    expect(findSecrets(value).sort()).toEqual(
      ['$.args.auth.password', '$.args.card.number', '$.args.headers[1]', '$.args.items[1].api_key'].sort(),
    );
  });

  it('names the paths in the payload check', () => {
    const p = fullPayload({ ...refundCreateBody.args, card: { number: '4111-1111-1111-1111' }, client_secret: 'x' });
    const r = checkPayload(p);
    expect(r?.code).toBe('secret_in_payload');
    expect(r?.paths?.sort()).toEqual(['$.args.card.number', '$.args.client_secret']);
    expect(r?.message).toContain('$.args.card.number');
  });

  it('finds secrets outside args too (preconditions, blast radius)', () => {
    const p = fullPayload();
    expect(checkPayload({ ...p, preconditions: { session_token: 'x' } })?.paths).toEqual([
      '$.preconditions.session_token',
    ]);
  });
});

describe('canonicalJson (RFC 8785)', () => {
  it('reproduces the RFC 8785 section 3.2.2 example', () => {
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    expect(canonicalJson(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('sorts keys by UTF-16 code units (RFC 8785 section 3.2.3)', () => {
    const input = JSON.parse(String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`);
    // Read the order off the text: Object.keys would hoist the integer-like key "1".
    const out = canonicalJson(input);
    const order = ['\\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'].map((k) =>
      out.indexOf(`"${k}":`),
    );
    expect(order.every((at) => at > 0)).toBe(true);
    // The emoji (U+1F600, surrogates D83D DE00) sorts before U+FB33: code units, not code points.
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(out.startsWith('{"\\r":"Carriage Return","1":"One",')).toBe(true);
  });

  it.each([
    { json: '1e21', out: '1e+21' },
    { json: '1e20', out: '100000000000000000000' },
    { json: '-0', out: '0' },
    { json: '1.0', out: '1' },
    { json: '4.50', out: '4.5' },
    { json: '0.000001', out: '0.000001' },
    { json: '1e-7', out: '1e-7' },
    { json: '9007199254740992', out: '9007199254740992' },
    { json: '5e-324', out: '5e-324' },
    { json: '1.7976931348623157e308', out: '1.7976931348623157e+308' },
    { json: '-1.5e-10', out: '-1.5e-10' },
    { json: '295147905179352830000', out: '295147905179352830000' },
  ])('serialises the number $json as $out', ({ json, out }) => {
    expect(canonicalJson(JSON.parse(json))).toBe(out);
    expect(canonicalJson({ n: JSON.parse(json) })).toBe(`{"n":${out}}`);
  });

  it.each([
    { value: 'é', out: '"é"' },
    { value: '\u2028', out: '"\u2028"' },
    { value: '\u001f', out: '"\\u001f"' },
    { value: '\t\b\f\n\r', out: '"\\t\\b\\f\\n\\r"' },
    { value: '</script>', out: '"</script>"' },
  ])('escapes only what JSON must: $out', ({ value, out }) => {
    expect(canonicalJson(value)).toBe(out);
  });

  it('drops undefined members and removes whitespace', () => {
    expect(canonicalJson({ b: [1, { d: true, c: null }], a: undefined })).toBe('{"b":[1,{"c":null,"d":true}]}');
  });

  it.each([NaN, Infinity, -Infinity])('refuses the number %p', (n) => {
    expect(() => canonicalJson({ n })).toThrow();
  });

  it('refuses a value with no JSON form', () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
});

describe('digest', () => {
  it('is the SHA-256 of the canonical JSON', () => {
    const value = { b: 2, a: [1, 'é'] };
    expect(digest(value)).toBe(createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex'));
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('is stable under key reordering at every depth', () => {
    expect(digest({ a: 1, b: { c: 2, d: [3, { e: 4, f: 5 }] } })).toBe(
      digest({ b: { d: [3, { f: 5, e: 4 }], c: 2 }, a: 1 }),
    );
  });

  it('changes with array order, values, and types', () => {
    const base = digest({ a: [1, 2] });
    expect(digest({ a: [2, 1] })).not.toBe(base);
    expect(digest({ a: [1, 3] })).not.toBe(base);
    expect(digest({ a: ['1', 2] })).not.toBe(base);
  });

  it('gives the payload hash the same way whatever order the payload was built in', () => {
    const p = fullPayload();
    const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(p).reverse()))) as EvidencePayload;
    expect(payloadSha256(reordered)).toBe(payloadSha256(p));
    expect(payloadSha256(p)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('ids and keys', () => {
  it('derives a deterministic, well-formed request id from an idempotency key', () => {
    expect(requestIdFor('agent-1', 'key-1')).toBe(requestIdFor('agent-1', 'key-1'));
    expect(requestIdFor('agent-1', 'key-1')).toMatch(/^appr_[0-9a-f]{24}$/);
    expect(requestIdFor('agent-1', 'key-1')).not.toBe(requestIdFor('agent-2', 'key-1'));
  });

  it('derives distinct request ids for distinct keys', () => {
    const ids = new Set(Array.from({ length: 500 }, (_, i) => requestIdFor('agent-1', `key-${i}`)));
    expect(ids.size).toBe(500);
    expect(requestIdFor('agent-1', 'a')).not.toBe(requestIdFor('agent-1', 'A'));
  });

  const base = { trigger_event_id: 'evt_1', action: 'stripe.refund.create', target: 'ch_1' };
  it.each([
    { field: 'trigger_event_id', patch: { trigger_event_id: 'evt_2' } },
    { field: 'action', patch: { action: 'stripe.refund.cancel' } },
    { field: 'target', patch: { target: 'ch_2' } },
  ])('changes the default idempotency key when $field changes', ({ patch }) => {
    expect(defaultIdempotencyKey({ ...base, ...patch })).not.toBe(defaultIdempotencyKey(base));
  });

  it('keeps the default idempotency key stable and free of concatenation collisions', () => {
    expect(defaultIdempotencyKey({ ...base })).toBe(defaultIdempotencyKey(base));
    expect(defaultIdempotencyKey({ trigger_event_id: 'ab', action: 'c', target: 'd' })).not.toBe(
      defaultIdempotencyKey({ trigger_event_id: 'a', action: 'bc', target: 'd' }),
    );
  });
});

describe('display-unsafe text', () => {
  it.each([
    ['an escape sequence in the summary', { summary: 'Refund\u001b[2K verified' }],
    ['a carriage return in the summary', { summary: 'Refund\rverified' }],
    ['a bidi override in the target', { target: 'ch_\u202e1' }],
  ])('refuses %s', (_t, over) => {
    const r = CreateApprovalBody.safeParse({
      correlation_id: 'c',
      trigger_event_id: 'e',
      action: 'refund.create',
      target: 'ch_1',
      summary: 'Refund',
      args: {},
      ...over,
    });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(/control characters or bidi overrides/);
  });
});
