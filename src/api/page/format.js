// @ts-check
// Pure helpers of the reviewer page: money and counts, time left, args as rows and their
// diff, and a 422's field problems by field. No DOM and no clock: test/unit/reviewer-page-format.test.ts
// runs this file in a bare JavaScript context.

/** @typedef {{ path: string, value: unknown }} Leaf */
/** @typedef {{ path: string, kind: 'added' | 'removed' | 'changed', before?: unknown, after?: unknown }} Change */

/** Blast radius keys that hold an amount of money; with a currency named they are in minor units (cents), as Stripe's are. */
const MONEY_KEY = /(^|_)(amount|total|price|cost|budget|fee|balance|spend|refund)s?($|_)|_(cents|minor)$/;

/** @param {unknown} v @returns {v is Record<string, unknown>} */
function isPlainObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The currency a blast radius names (`currency: "usd"`), as an ISO 4217 code the browser
 * knows, or undefined.
 * @param {Record<string, unknown> | undefined} blast
 */
function currencyOf(blast) {
  const c = blast && blast.currency;
  if (typeof c !== 'string' || !/^[A-Za-z]{3}$/.test(c)) return undefined;
  try {
    new Intl.NumberFormat('en', { style: 'currency', currency: c.toUpperCase() });
    return c.toUpperCase();
  } catch {
    return undefined;
  }
}

/**
 * An integer amount in minor units as money: 14502 USD cents -> "$145.02"; 300000 KRW -> "₩300,000".
 * @param {number} minor
 * @param {string} currency
 */
function money(minor, currency) {
  const f = new Intl.NumberFormat('en', { style: 'currency', currency });
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

/** @param {number} n a count, grouped: 1200 -> "1,200" */
function count(n) {
  return new Intl.NumberFormat('en').format(n);
}

/** @param {string} key `amount_cents` -> "amount" (the unit goes into the value) */
function label(key) {
  return key.replace(/_(cents|minor)$/, '').replace(/_/g, ' ');
}

/**
 * The blast radius as rows a person reads: amounts as money when a currency is named,
 * other numbers as counts, anything else as its text. The `currency` key itself is folded
 * into the amounts.
 * @param {Record<string, unknown> | undefined} blast
 * @returns {{ key: string, label: string, text: string, kind: 'money' | 'count' | 'text' }[]}
 */
function blastRows(blast) {
  const currency = currencyOf(blast);
  /** @type {{ key: string, label: string, text: string, kind: 'money' | 'count' | 'text' }[]} */
  const rows = [];
  for (const [key, v] of Object.entries(blast || {})) {
    if (key === 'currency' && currency) continue;
    if (typeof v === 'number' && Number.isFinite(v)) {
      if (currency && MONEY_KEY.test(key))
        rows.push({ key, label: label(key), text: money(v, currency), kind: 'money' });
      else rows.push({ key, label: key.replace(/_/g, ' '), text: count(v), kind: 'count' });
    } else
      rows.push({
        key,
        label: key.replace(/_/g, ' '),
        text: typeof v === 'string' ? v : JSON.stringify(v),
        kind: 'text',
      });
  }
  return rows;
}

/**
 * The money an args field means, when the blast radius names a currency and the field is an amount: for a hint beside it.
 * @param {string} path
 * @param {unknown} v
 * @param {Record<string, unknown> | undefined} blast
 */
function moneyHint(path, v, blast) {
  const currency = currencyOf(blast);
  const key = path.split(/[.[]/).pop() || '';
  return currency && typeof v === 'number' && Number.isInteger(v) && MONEY_KEY.test(key)
    ? money(v, currency)
    : undefined;
}

/**
 * Time left until a deadline as a person reads it, and how urgent it is.
 * @param {number} ms milliseconds left (negative: past)
 * @returns {{ text: string, urgency: 'gone' | 'critical' | 'soon' | 'later' }}
 */
function timeLeft(ms) {
  if (ms <= 0) return { text: 'expired', urgency: 'gone' };
  const s = Math.floor(ms / 1000);
  const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const text =
    d > 0 ? `${d}d ${h}h left` : h > 0 ? `${h}h ${pad(m)}m left` : m > 0 ? `${m}m ${pad(s % 60)}s left` : `${s}s left`;
  return { text, urgency: ms < 60_000 ? 'critical' : ms < 15 * 60_000 ? 'soon' : 'later' };
}

/**
 * When an escalation level fires, from its seconds after creation: `after 30m`, `after 1h 30m`.
 * @param {number} seconds
 */
function afterText(seconds) {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const parts = [d && `${d}d`, h && `${h}h`, m && `${m}m`, s && `${s}s`].filter(Boolean);
  return `after ${parts.length ? parts.join(' ') : '0s'}`;
}

/**
 * Every leaf of a JSON value with its path (`items[0].sku`); an empty object or array is a leaf.
 * @param {unknown} value
 * @param {string} [path]
 * @returns {Leaf[]}
 */
function leaves(value, path = '') {
  const join = (/** @type {string} */ k) => (path ? `${path}.${k}` : k);
  if (Array.isArray(value) && value.length > 0) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  if (isPlainObject(value) && Object.keys(value).length > 0)
    return Object.entries(value).flatMap(([k, v]) => leaves(v, join(k)));
  return [{ path, value }];
}

/** @param {unknown} v a leaf as text: strings as they are, anything else as JSON */
function textOf(v) {
  return typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v);
}

/**
 * What changed between the args requested and the args that will run, leaf by leaf
 * (objects by key, arrays by position); unchanged leaves are left out.
 * @param {unknown} before
 * @param {unknown} after
 * @returns {Change[]}
 */
function structuralDiff(before, after) {
  const a = new Map(leaves(before).map((l) => [l.path, l.value]));
  const b = new Map(leaves(after).map((l) => [l.path, l.value]));
  /** @type {Change[]} */
  const out = [];
  for (const [path, v] of a) {
    if (!b.has(path)) out.push({ path, kind: 'removed', before: v });
    else if (JSON.stringify(v) !== JSON.stringify(b.get(path)))
      out.push({ path, kind: 'changed', before: v, after: b.get(path) });
  }
  for (const [path, v] of b) if (!a.has(path)) out.push({ path, kind: 'added', after: v });
  return out;
}

/**
 * A 422's problems by top-level args field (`$.args.amount`, `args.amount` and `amount`
 * all name `amount`), and the ones that name no field.
 * @param {unknown} details the `details` of an API error
 * @returns {{ byField: Map<string, string[]>, other: string[] }}
 */
function fieldProblems(details) {
  /** @type {Map<string, string[]>} */
  const byField = new Map();
  /** @type {string[]} */
  const other = [];
  const list = Array.isArray(details) ? details.flat() : [];
  for (const p of list) {
    if (!isPlainObject(p) || typeof p.message !== 'string') continue;
    const path = typeof p.path === 'string' ? p.path.replace(/^\$\.?/, '').replace(/^args(\.|$)/, '') : '';
    const field = path.split(/[.[]/)[0] || '';
    if (!field) other.push(p.message);
    else byField.set(field, [...(byField.get(field) || []), p.message]);
  }
  return { byField, other };
}

/**
 * What a reviewer typed for a field, read as the type the field has: text stays text,
 * a number field takes a number, a boolean true or false; objects, arrays, null and new
 * fields are JSON (a new field that is not JSON is text).
 * @param {string} text
 * @param {unknown} original the field's value now; undefined for a new field
 * @returns {{ ok: true, value: unknown } | { ok: false, problem: string }}
 */
function parseField(text, original) {
  if (typeof original === 'string') return { ok: true, value: text };
  const t = text.trim();
  if (typeof original === 'number') {
    const n = Number(t);
    return t !== '' && Number.isFinite(n) ? { ok: true, value: n } : { ok: false, problem: 'must be a number' };
  }
  if (typeof original === 'boolean') {
    return t === 'true' || t === 'false'
      ? { ok: true, value: t === 'true' }
      : { ok: false, problem: 'must be true or false' };
  }
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch {
    return original === undefined ? { ok: true, value: text } : { ok: false, problem: 'must be JSON' };
  }
}

/** @param {unknown} v a field's value as the reviewer edits it: strings bare, the rest as JSON */
function editText(v) {
  return typeof v === 'string' ? v : JSON.stringify(v);
}
