import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { findSecrets } from '../../src/common/secrets';
import { secretKindIn } from '../../src/common/secret-patterns';

// Test values are assembled from parts so that no scanner mistakes this file for a leak.
const AWS_SECRET = ['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYEXAMPLEKEY'].join('/');
const JWT = ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'dozjgNryP4J3jVmNHl0w5N'].join('.');
const PEM = ['-----BEGIN', 'RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA75\n-----END RSA PRIVATE KEY-----'].join(' ');
const alnum = (n: number, seed = 'Ab3xY9kQ'): string => seed.repeat(Math.ceil(n / seed.length)).slice(0, n);

/** Each kind: values that must be refused (alone and inside longer text), and near misses that must pass. */
const TABLE: { kind: string; refused: string[]; passes: string[] }[] = [
  {
    kind: 'pem_private_key',
    refused: [
      PEM,
      ['-----BEGIN', 'PRIVATE KEY-----'].join(' '),
      ['-----BEGIN', 'OPENSSH PRIVATE KEY-----'].join(' '),
      ['-----BEGIN', 'EC PRIVATE KEY-----'].join(' '),
      ['-----BEGIN', 'ENCRYPTED PRIVATE KEY-----'].join(' '),
      ['-----BEGIN', 'PGP PRIVATE KEY BLOCK-----'].join(' '),
    ],
    passes: [
      ['-----BEGIN', 'PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----'].join(' '),
      ['-----BEGIN', 'CERTIFICATE-----'].join(' '),
      'rotate the private key next week',
    ],
  },
  {
    kind: 'jwt',
    refused: [JWT, `${JWT.split('.').slice(0, 2).join('.')}.`],
    passes: ['eyJhbGciOiJIUzI1NiJ9', 'eyJhbGciOiJIUzI1NiJ9.payload', 'eyJ.eyJ.x', 'theyJoined.eyJumped.today'],
  },
  {
    kind: 'aws_access_key_id',
    refused: ['AKIAIOSFODNN7EXAMPLE', 'ASIAIOSFODNN7EXAMPLE'],
    passes: ['AKIAIOSFODNN7EXAMPL', 'AKIAIOSFODNN7EXAMPLE1', 'AKIA is the prefix', 'akiaiosfodnn7example'],
  },
  {
    kind: 'aws_secret_access_key',
    refused: [
      AWS_SECRET,
      `aws_secret_access_key = ${AWS_SECRET.replace(/\//g, 'x')}`,
      `SecretAccessKey: "${AWS_SECRET.replace(/\//g, 'Q')}"`,
    ],
    passes: [
      'da39a3ee5e6b4b0d3255bfef95601890afd80709', // a SHA-1 in hex
      'https://example.com/Users/Alice2/Documents/Reports/2030/Q3abc',
      AWS_SECRET.replace(/\//g, 'x'), // 40 characters with no label and no / or +: too common a shape
      `${AWS_SECRET}x`,
    ],
  },
  {
    kind: 'github_token',
    refused: ['ghp_' + alnum(36), 'gho_' + alnum(36), 'github_pat_' + alnum(22) + '_' + alnum(59)],
    passes: ['ghp_short', 'github_pat_', 'gh_pages', 'github_pat_abc'],
  },
  {
    kind: 'slack_token',
    refused: ['xoxb-1234567890-abcdef', 'xoxp-' + alnum(30), 'xapp-1-' + alnum(20)],
    passes: ['xoxo-hugs', 'xoxb-short', 'detoxoxb-1234567890-abcdef'],
  },
  {
    kind: 'slack_webhook',
    refused: ['https://hooks.slack.com/services/T00000000/B00000000/' + alnum(24)],
    passes: ['https://hooks.slack.com/', 'https://slack.com/services'],
  },
  {
    kind: 'sk_api_key',
    refused: ['sk-' + alnum(32), 'sk-proj-' + alnum(40), 'sk-ant-api03-' + alnum(40)],
    passes: ['sk-short', 'task-' + alnum(30), 'risk-' + alnum(30), 'desk-' + alnum(30)],
  },
  {
    kind: 'stripe_secret_key',
    refused: ['sk_live_' + alnum(24), 'sk_test_' + alnum(24), 'rk_live_' + alnum(24), 'whsec_' + alnum(32)],
    passes: ['pk_live_' + alnum(24), 'sk_live_abc', 'task_live_' + alnum(24), 'sk_prod_' + alnum(24)],
  },
  {
    kind: 'google_api_key',
    refused: ['AIza' + alnum(35)],
    passes: ['AIza' + alnum(20), 'AIzaSy'],
  },
  {
    kind: 'url_with_password',
    refused: [
      'postgres://app:hunter2@db.internal:5432/orders',
      'https://user:pa55@example.com/',
      'redis://:s3cret@cache:6379',
    ],
    passes: [
      'https://user@example.com/',
      'https://example.com:8443/a@b',
      'mailto:ann@example.com',
      'postgres://db.internal:5432/orders',
    ],
  },
  {
    kind: 'cookie_header',
    refused: ['Cookie: session=abc123', 'Set-Cookie: sid=9f8e7d; HttpOnly', 'cookie:theme=dark'],
    passes: ['cookie policy accepted', 'Cookie: chocolate chip', 'cookies: 3'],
  },
  {
    kind: 'assigned_credential',
    refused: ['host=db user=app password=hunter2', '?client_id=x&client_secret=abc123', 'db_password=xyz9'],
    passes: ['password reset requested', 'password=', 'max_tokens=500', 'mypassword=abc123'],
  },
  {
    kind: 'bearer_token',
    refused: ['Bearer abcDEF123456789', 'authorization: bearer ' + alnum(30)],
    passes: ['Bearer', 'the bearer of bad news', 'Bearer short'],
  },
  {
    kind: 'basic_auth',
    refused: ['Authorization: Basic dXNlcjpwYXNz'],
    passes: ['Basic plan, billed monthly'],
  },
  {
    kind: 'card_number',
    refused: [
      '4111 1111 1111 1111',
      '4111-1111-1111-1111',
      '4111.1111.1111.1111',
      '3782.822463.10005',
      '4111111111111111',
    ],
    passes: ['4111.1111.1111.1112', '4111.111111111111', '0.4111111111111111', '41.11.11.11', '1.2.3.4'],
  },
];

describe('credentials in text', () => {
  const cases = TABLE.flatMap(({ kind, refused }) => refused.map((value) => ({ kind, value })));

  it.each(cases)('refuses $kind: $value', ({ value }) => {
    expect(findSecrets({ note: value })).toEqual(['$.note']);
  });

  it.each(cases)('refuses $kind embedded in a longer string: $value', ({ value }) => {
    for (const wrapped of [`see ${value} here`, `{"x":"${value}"}`, `prefix_${value}`, `(${value})`, `\n${value}\n`]) {
      expect({ wrapped, found: findSecrets({ note: wrapped }) }).toEqual({ wrapped, found: ['$.note'] });
    }
  });

  it.each(cases)('refuses $kind used as a key: $value', ({ value }) => {
    expect(findSecrets({ args: { [value]: true } })).toEqual([`$.args.${value}`]);
  });

  it.each(TABLE.flatMap(({ kind, passes }) => passes.map((value) => ({ kind, value }))))(
    'passes the near miss for $kind: $value',
    ({ value }) => {
      expect(findSecrets({ note: value })).toEqual([]);
    },
  );

  it('names the kind it found', () => {
    for (const { refused } of TABLE) for (const value of refused) expect(secretKindIn(value)).toBeTruthy();
    expect(secretKindIn(JWT)).toBe('jwt');
    expect(secretKindIn('4111.1111.1111.1111')).toBe('card_number');
  });

  it('looks inside JSON held in a string', () => {
    expect(findSecrets({ body: JSON.stringify({ user: 'a', password: 'x' }) })).toEqual(['$.body']);
    expect(findSecrets({ body: JSON.stringify([{ ok: 1 }, { api_key: 'x' }]) })).toEqual(['$.body']);
    expect(findSecrets({ body: JSON.stringify({ user: 'a', amount: 3 }) })).toEqual([]);
    expect(findSecrets({ body: '{not json' })).toEqual([]);
  });

  it('refuses the new key names (cookies, JWTs) and keeps ordinary ones', () => {
    expect(findSecrets({ headers: { Cookie: 'a', 'Set-Cookie': 'b', jwt: 'c' } }).sort()).toEqual(
      ['$.headers.Cookie', '$.headers.Set-Cookie', '$.headers.jwt'].sort(),
    );
    expect(findSecrets({ cookbook: 'x', session_id: 'y' })).toEqual([]);
  });
});

describe('UUIDs are not card numbers', () => {
  // Regression: a Luhn-valid 16-digit run across the dashes of an all-digit stretch of a UUID was refused.
  it('refuses no UUID fast-check generates, bare or inside an id', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.constantFrom('', 'corr_', 'req-', 'trace '), (uuid, prefix) => {
        expect(findSecrets({ correlation_id: `${prefix}${uuid}`, target: uuid.toUpperCase() })).toEqual([]);
      }),
      { numRuns: 20_000 },
    );
  });

  it('refuses none of 100,000 random v4 UUIDs', () => {
    let refused = 0;
    for (let i = 0; i < 100_000; i++) if (findSecrets({ correlation_id: randomUUID() }).length > 0) refused++;
    expect(refused).toBe(0);
  });

  it('still refuses a card number next to a UUID', () => {
    expect(findSecrets({ note: `${randomUUID()} 4111 1111 1111 1111` })).toEqual(['$.note']);
    // The shape that used to be refused: an all-digit UUID whose middle reads as a Luhn-valid card.
    expect(findSecrets({ note: '12345678-4111-1111-1111-111100000000' })).toEqual([]);
  });
});

describe('scanning cost', () => {
  it.each([
    ['letters', 'a'.repeat(64 * 1024)],
    ['digits and dashes', '1-'.repeat(32 * 1024)],
    ['JWT starts', 'eyJ.'.repeat(16 * 1024)],
    ['scheme-like text', 'ab://'.repeat(13 * 1024)],
    ['base64', alnum(64 * 1024, 'Ab3/+x9Z')],
    ['assignments', 'password '.repeat(7 * 1024)],
    ['JSON-looking', '{'.repeat(64 * 1024)],
    ['JWT starts after underscores', '_eyJ'.repeat(16 * 1024)],
    ['dotted digit groups', '1111.'.repeat(13 * 1024)],
    ['cookie headers', 'cookie: a'.repeat(7 * 1024)],
    ['URL user parts', 'a://b:'.repeat(11 * 1024)],
    ['deep JSON in a string', '['.repeat(30_000) + ']'.repeat(30_000)],
    ['40-character runs', (alnum(39, 'Ab3/+x9Z') + '.').repeat(1600)],
  ])('scans 64 KB of %s in well under a second', (_what, text) => {
    const t0 = performance.now();
    findSecrets({ note: text });
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

/** `body` with the Luhn check digit appended, so a near miss fails for its prefix or length, not its checksum. */
function luhnValid(body: string): string {
  for (let d = 0; d <= 9; d++) {
    const n = body + d;
    let sum = 0;
    for (let i = n.length - 1, dbl = false; i >= 0; i--, dbl = !dbl) {
      let x = Number(n[i]);
      if (dbl) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return n;
  }
  throw new Error('unreachable');
}

describe('card numbers: a network prefix and a length that network issues', () => {
  // Regression: a Luhn-valid 13-19 digit run was refused whatever its prefix, so one id in ten that carried a
  // Date.now() timestamp (it flows into the default request id of requireApproval) was refused as a card.
  it.each([
    { brand: 'Visa 16', value: '4111 1111 1111 1111' },
    { brand: 'Visa 16', value: '4012888888881881' },
    { brand: 'Visa 13', value: '4222222222222' },
    { brand: 'Visa 19', value: luhnValid('411111111111111111') },
    { brand: 'Mastercard 5-series', value: '5555-5555-5555-4444' },
    { brand: 'Mastercard 5-series', value: '5105105105105100' },
    { brand: 'Mastercard 2-series', value: '2223003122003222' },
    { brand: 'American Express', value: '378282246310005' },
    { brand: 'American Express', value: '3714 496353 98431' },
    { brand: 'Diners Club 14', value: '3056 9309 0259 04' },
    { brand: 'Diners Club 14', value: '38520000023237' },
    { brand: 'Discover', value: '6011 1111 1111 1117' },
    { brand: 'Discover', value: '6011000990139424' },
    { brand: 'JCB', value: '3530111333300000' },
    { brand: 'JCB', value: '3566002020360505' },
    { brand: 'UnionPay', value: '6200000000000005' },
    { brand: 'Mir', value: luhnValid('220000000000000') },
    { brand: 'Visa, dotted', value: '4111.1111.1111.1111' },
    { brand: 'Visa after a short number', value: 'ref 12 4111 1111 1111 1111' },
    { brand: 'Visa inside an id', value: 'order-4111111111111111-approval-1' },
  ])('refuses a $brand test number: $value', ({ value }) => {
    expect(findSecrets({ note: value })).toEqual(['$.note']);
  });

  it('refuses a card sent as a JSON number', () => {
    expect(findSecrets({ n: 4111111111111111, m: 5555555555554444 }).sort()).toEqual(['$.m', '$.n']);
  });

  it.each([
    { why: 'a millisecond timestamp (13 digits, prefix 1)', value: luhnValid('173300000000') },
    { why: 'a microsecond timestamp (16 digits, prefix 1)', value: luhnValid('173300000000000') },
    { why: 'a nanosecond timestamp (19 digits, prefix 1)', value: luhnValid('173300000000000000') },
    { why: 'a 14-digit run with the Visa prefix (Visa issues 13, 16, 19)', value: luhnValid('4111111111111') },
    { why: 'a 15-digit run with a Mastercard prefix (Mastercard issues 16)', value: luhnValid('55555555555555') },
    { why: 'a 16-digit run with the Amex prefix (Amex issues 15)', value: luhnValid('378282246310005') },
    { why: 'a 16-digit run with prefix 7 (no network)', value: luhnValid('711111111111111') },
    { why: 'a 16-digit run with prefix 0 (no network)', value: luhnValid('011111111111111') },
    { why: 'the Visa test number with a wrong check digit', value: '4111111111111112' },
  ])('passes $why: $value', ({ value }) => {
    expect(findSecrets({ note: value, correlation_id: `wf-${value}`, request_id: `wf-${value}-approval-1` })).toEqual(
      [],
    );
  });

  it('passes every Date.now()-style timestamp (2001 to 2033) in a workflow id, a default request id and a number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000_000_000_000, max: 1_999_999_999_999 }), (ms) => {
        const wf = `refund-${ms}`;
        expect(
          findSecrets({ correlation_id: wf, request_id: `${wf}-approval-1`, trigger_event_id: `${wf}/${wf}`, at: ms }),
        ).toEqual([]);
      }),
      { numRuns: 20_000 },
    );
  });

  it('passes the Luhn-valid 13-digit timestamps that used to be refused', () => {
    // Every tenth millisecond is Luhn-valid; before the prefix check each of these was refused.
    const valid = Array.from({ length: 200 }, (_, i) => 1_733_000_000_000 + i).filter(
      (ms) => luhnValid(String(ms).slice(0, 12)) === String(ms),
    );
    expect(valid.length).toBe(20);
    for (const ms of valid) expect(findSecrets({ request_id: `wf-${ms}-approval-1` })).toEqual([]);
  });
});
