/**
 * Credentials recognised inside text, wherever they sit in a longer string. Every pattern
 * starts at a fixed prefix or at the start of a run (a lookbehind), and every repetition
 * is bounded, so a 64 KB adversarial string is scanned in linear time.
 */

/** A named detector: `test` says whether `text` carries that kind of credential. */
export interface SecretPattern {
  name: string;
  test(text: string): boolean;
}

const re = (name: string, pattern: RegExp): SecretPattern => ({ name, test: (t) => pattern.test(t) });

/** Not preceded by a letter or digit (`_`, `-`, `=`, `/` and spaces may precede). */
const START = '(?<![A-Za-z0-9])';

/** Names that, followed by `=`, put a credential in a query string, a form or a connection string. */
const ASSIGNED_NAMES =
  'password|passwd|passphrase|secret|api[_-]?key|apikey|token|private[_-]?key|access[_-]?key|accountkey|sharedaccesskey';

const PATTERNS: SecretPattern[] = [
  re('pem_private_key', /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/),
  // A JWT: base64url JSON header and payload (both start `{"`, that is `eyJ`), then the signature.
  { name: 'jwt', test: hasJwt },
  re('bearer_token', new RegExp(`${START}bearer\\s{1,20}[A-Za-z0-9._~+/-]{8}`, 'i')),
  re('basic_auth', /authorization["']?\s{0,20}[:=]\s{0,20}["']?basic\s{1,20}[A-Za-z0-9+/]{6}/i),
  re('aws_access_key_id', /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/),
  re(
    'aws_secret_access_key',
    /(?:secret_?access_?key|aws_?secret(?:_?key)?)["']?\s{0,20}[:=]\s{0,20}["']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/i,
  ),
  { name: 'aws_secret_access_key', test: hasBareAwsSecret },
  re('github_token', /(?:gh[pousr]_[A-Za-z0-9]{20}|github_pat_[A-Za-z0-9_]{22})/),
  re('gitlab_token', /glpat-[A-Za-z0-9_-]{20}/),
  re('npm_token', new RegExp(`${START}npm_[A-Za-z0-9]{36}`)),
  re('slack_token', new RegExp(`${START}(?:xox[abposre]-[A-Za-z0-9-]{10}|xapp-[0-9]-[A-Za-z0-9-]{10})`)),
  re('slack_webhook', /hooks\.slack\.com\/services\/T[A-Za-z0-9]{4,}\/B[A-Za-z0-9]{4,}\/[A-Za-z0-9]{8}/),
  re('sk_api_key', new RegExp(`${START}sk-[A-Za-z0-9_-]{20}`)),
  re('stripe_secret_key', new RegExp(`${START}(?:[rs]k_(?:live|test)_[A-Za-z0-9]{10}|whsec_[A-Za-z0-9+/=]{20})`)),
  re('google_api_key', /AIza[0-9A-Za-z_-]{35}/),
  // scheme://user:password@host; the scheme is anchored at its run start so a long word is not rescanned.
  re('url_with_password', /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/[^\s/:@]{0,256}:[^\s/@]{1,256}@/),
  re('cookie_header', /(?<![A-Za-z0-9-])(?:set-)?cookie["']?\s{0,20}:\s{0,20}["']?[^\s=;:,"']{1,256}=[^\s;,"']/i),
  re('assigned_credential', new RegExp(`${START}(?:${ASSIGNED_NAMES})\\s{0,20}=\\s{0,20}["']?[^\\s&;,"'<>]{3}`, 'i')),
];

/** Three dot-separated base64url segments, each run matched from its start only (linear time). */
const DOTTED_RUNS = /(?<![A-Za-z0-9_-])([A-Za-z0-9_-]{8,})\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;

/**
 * A JWT: base64url JSON header and payload (both start `{"`, that is `eyJ`), then the
 * signature; also when the header is glued to a longer word (`token_eyJ…`).
 */
function hasJwt(text: string): boolean {
  if (!text.includes('eyJ')) return false;
  for (const m of text.matchAll(DOTTED_RUNS)) if (/(?:^|[_-])eyJ[A-Za-z0-9_-]{5}/.test(m[1]!)) return true;
  return false;
}

/** A 40-character run of the AWS secret alphabet, standing alone. */
const BARE_40 = /(?<![A-Za-z0-9/+=.])[A-Za-z0-9][A-Za-z0-9/+]{38}[A-Za-z0-9](?![A-Za-z0-9/+=])/g;

/**
 * An AWS secret access key without a label: 40 characters mixing upper and lower case and
 * digits, with a `/` or `+`. Hex digests (no upper case, no `/`) and URL paths (they start
 * after `/` or `.`) are not of that shape.
 */
function hasBareAwsSecret(text: string): boolean {
  if (text.length < 40) return false;
  for (const m of text.matchAll(BARE_40)) {
    const s = m[0];
    if (/[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s) && /[/+]/.test(s)) return true;
  }
  return false;
}

/** A UUID: its digit groups must never read as a card number across the dashes. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** 13 to 19 digits, optionally grouped by single spaces or dashes, standing alone (not the fraction of a decimal). */
const CARD_LOOSE = /(?<![A-Za-z0-9])(?<!\d\.)(?:\d[ -]?){12,18}\d(?![A-Za-z0-9])(?!\.\d)/g;
/** Digits grouped by dots as cards are printed (4111.1111.1111.1111, 3782.822463.10005); a decimal is not. */
const CARD_DOTTED = /(?<![A-Za-z0-9.])\d{4}(?:\.\d{3,6}){2,4}(?![A-Za-z0-9]|\.\d)/g;

/** Luhn check, so order numbers of 13+ digits are not all mistaken for cards. */
function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const between = (n: number, lo: number, hi: number): boolean => n >= lo && n <= hi;

/**
 * True when the digits start with a card network's issuer prefix and have a length that
 * network issues (ISO/IEC 7812 ranges as the networks publish them). Luhn alone passes one
 * digit run in ten, so ids carrying a `Date.now()` timestamp (13 digits starting with 1,
 * a prefix no network uses) were refused at random; no real card starts with 1, 7 or 0.
 */
export function hasCardBrand(digits: string): boolean {
  const len = digits.length;
  const p2 = Number(digits.slice(0, 2));
  const p3 = Number(digits.slice(0, 3));
  const p4 = Number(digits.slice(0, 4));
  if (digits[0] === '4') return len === 13 || len === 16 || len === 19; // Visa
  if (between(p2, 51, 55) || between(p4, 2221, 2720)) return len === 16; // Mastercard
  if (p2 === 34 || p2 === 37) return len === 15; // American Express
  if (between(p4, 2200, 2204)) return between(len, 16, 19); // Mir
  if (between(p3, 300, 305) || p4 === 3095 || p2 === 36 || p2 === 38 || p2 === 39) return between(len, 14, 19); // Diners
  if (between(p4, 3528, 3589)) return between(len, 16, 19); // JCB
  // Discover, UnionPay, RuPay, Maestro (50, 56-69), Verve: the 6 range and its neighbours.
  if (digits[0] === '6' || p2 === 50 || between(p2, 56, 59) || p2 === 81 || p2 === 82) return between(len, 13, 19);
  if (p4 === 9792) return len === 16; // Troy
  return false;
}

/**
 * The 13-19 digit candidates of one matched run: the whole run and, when it is grouped,
 * every run of whole groups, so a card after a short number (`ref 12 4111 1111 1111 1111`)
 * is still seen. At most 19 groups, so this stays small.
 */
function cardRuns(run: string): string[] {
  const groups = run.split(/[ .-]/);
  const out: string[] = [];
  for (let i = 0; i < groups.length; i++) {
    let digits = '';
    for (let j = i; j < groups.length && digits.length < 19; j++) {
      digits += groups[j];
      if (digits.length >= 13 && digits.length <= 19) out.push(digits);
    }
  }
  return out;
}

/** True when `text` holds a Luhn-valid run of 13-19 digits with a card network's prefix and length, as cards are written. */
export function looksLikeCard(text: string): boolean {
  const t = text.replace(UUID, ' ');
  for (const pattern of [CARD_LOOSE, CARD_DOTTED]) {
    for (const m of t.matchAll(pattern)) if (cardRuns(m[0]).some((d) => hasCardBrand(d) && luhn(d))) return true;
  }
  return false;
}

/** The kind of credential `text` carries (`jwt`, `card_number`…), or null when it looks clean. */
export function secretKindIn(text: string): string | null {
  for (const p of PATTERNS) if (p.test(text)) return p.name;
  return looksLikeCard(text) ? 'card_number' : null;
}
