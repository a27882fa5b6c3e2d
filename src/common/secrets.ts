import { jsonDepth, MAX_JSON_DEPTH } from './json-limits';
import { looksLikeCard, secretKindIn } from './secret-patterns';

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
  'cookie',
  'cookies',
  'jwt',
  'bearer',
  'privatekey',
  'secretkey',
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

/** A string this long or longer is not parsed as embedded JSON (the payload limit is 64 KB anyway). */
const MAX_EMBEDDED_JSON = 128 * 1024;

/** A string holding a JSON object or array (`"{\"password\": …}"`), parsed; undefined otherwise. */
function embeddedJson(text: string): unknown {
  const t = text.trim();
  if (t.length < 2 || t.length > MAX_EMBEDDED_JSON || !/^[[{]/.test(t)) return undefined;
  if (jsonDepth(t) > MAX_JSON_DEPTH) return undefined; // too deep to walk; not a place secrets hide in practice
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Paths inside `value` that carry secrets: keys named like credentials, credentials in
 * text (tokens, private keys, URLs with a password…, see secret-patterns.ts) in values
 * and in keys, JSON held in a string, and card-number-like values (Luhn-valid). Empty
 * when clean.
 */
export function findSecrets(value: unknown, path = '$'): string[] {
  const found: string[] = [];
  const visit = (v: unknown, p: string): void => {
    if (typeof v === 'string') {
      if (secretKindIn(v) !== null) found.push(p);
      else {
        const inner = embeddedJson(v);
        if (inner !== undefined && findSecrets(inner, p).length > 0) found.push(p);
      }
    } else if (typeof v === 'number') {
      if (Number.isInteger(v) && looksLikeCard(String(v))) found.push(p);
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, `${p}[${i}]`));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        const childPath = `${p}.${k}`;
        if (isSecretKey(k) || secretKindIn(k) !== null) found.push(childPath);
        else visit(child, childPath);
      }
    }
  };
  visit(value, path);
  return found;
}
