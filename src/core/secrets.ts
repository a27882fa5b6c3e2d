/** Words that name a credential when they appear in a key (`access_token`, `clientSecret`). */
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'secret',
  'token',
  'authorization',
  'cvv',
  'cvc',
  'credential',
  'credentials',
  'apikey',
  'cardnumber',
]);
/** Adjacent word pairs that name a credential (`api_key`, `card-number`). */
const SECRET_PAIRS = new Set(['api key', 'private key', 'card number', 'access key', 'secret key', 'card pan']);

/** Splits `clientSecret`, `API_KEY`, `card-number` into lower-case words. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** True when a key names a credential. `max_tokens` and `idempotency_key` are not secrets. */
export function isSecretKey(key: string): boolean {
  const words = keyWords(key);
  for (let i = 0; i < words.length; i++) {
    if (SECRET_WORDS.has(words[i]!)) return true;
    if (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${words[i]}`)) return true;
  }
  return false;
}

/** 13 to 19 digits, optionally grouped by spaces or dashes: looks like a payment card number. */
const CARD_LIKE = /\b(?:\d[ -]?){12,18}\d\b/g;

/** Bearer credentials and common key prefixes. */
const TOKEN_LIKE =
  /\b(?:[Bb][Ee][Aa][Rr][Ee][Rr]\s+[A-Za-z0-9._~+/-]{8,}|sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})/;

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

function looksLikeCard(text: string): boolean {
  for (const m of text.matchAll(CARD_LIKE)) if (luhn(m[0].replace(/[ -]/g, ''))) return true;
  return false;
}

/**
 * Paths inside `value` that carry secrets: keys named like credentials, bearer or API
 * tokens, and card-number-like values (Luhn-valid). Empty when clean.
 */
export function findSecrets(value: unknown, path = '$'): string[] {
  const found: string[] = [];
  const visit = (v: unknown, p: string): void => {
    if (typeof v === 'string') {
      if (looksLikeCard(v) || TOKEN_LIKE.test(v)) found.push(p);
    } else if (typeof v === 'number') {
      if (Number.isInteger(v) && looksLikeCard(String(v))) found.push(p);
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, `${p}[${i}]`));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        const childPath = `${p}.${k}`;
        if (isSecretKey(k)) found.push(childPath);
        else visit(child, childPath);
      }
    }
  };
  visit(value, path);
  return found;
}
