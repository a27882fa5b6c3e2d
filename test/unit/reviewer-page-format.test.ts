import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { loadReviewerPage, PAGE_DIR, PAGE_SCRIPTS } from '../../src/api/reviewer-page';

// The reviewer page's pure helpers (src/api/page/format.js), run as the browser runs them:
// a classic script in a bare JavaScript context, no DOM, no Node.

interface Format {
  blastRows(b: unknown): { key: string; label: string; text: string; kind: string }[];
  moneyHint(path: string, v: unknown, b: unknown): string | undefined;
  timeLeft(ms: number): { text: string; urgency: string };
  afterText(seconds: number): string;
  leaves(v: unknown): { path: string; value: unknown }[];
  structuralDiff(a: unknown, b: unknown): { path: string; kind: string; before?: unknown; after?: unknown }[];
  fieldProblems(d: unknown): { byField: Map<string, string[]>; other: string[] };
  parseField(text: string, original: unknown): { ok: boolean; value?: unknown; problem?: string };
}

const source = fs.readFileSync(path.join(PAGE_DIR, 'format.js'), 'utf8');
const f = vm.runInNewContext(
  `${source}\n({ blastRows, moneyHint, timeLeft, afterText, leaves, structuralDiff, fieldProblems, parseField })`,
) as Format;
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T; // values from the other context, compared here

describe('reviewer page: escalation levels', () => {
  it.each([
    [90, 'after 1m 30s'],
    [1800, 'after 30m'],
    [5400, 'after 1h 30m'],
    [86400 + 7200, 'after 1d 2h'],
    [0, 'after 0s'],
  ])('says when a level %d s after creation fires: %s', (seconds, text) => {
    expect(f.afterText(seconds)).toBe(text);
  });
});

describe('reviewer page: money and counts', () => {
  it('shows amounts as money when the blast radius names a currency, in its minor units', () => {
    expect(plain(f.blastRows({ amount_cents: 14502, currency: 'usd' }))).toEqual([
      { key: 'amount_cents', label: 'amount', text: '$145.02', kind: 'money' },
    ]);
    expect(f.blastRows({ budget: 300000, currency: 'KRW' })[0]!.text).toBe('₩300,000');
    expect(f.blastRows({ refund_amount: 99, currency: 'eur' })[0]!.text).toBe('€0.99');
  });

  it('shows other numbers as counts, and amounts as counts when no currency is named', () => {
    expect(plain(f.blastRows({ rows: 1200, services: 3 }))).toEqual([
      { key: 'rows', label: 'rows', text: '1,200', kind: 'count' },
      { key: 'services', label: 'services', text: '3', kind: 'count' },
    ]);
    expect(f.blastRows({ amount_cents: 14502 })[0]).toMatchObject({ text: '14,502', kind: 'count' });
    expect(f.blastRows({ amount_cents: 5, currency: 'not-a-currency' })[0]).toMatchObject({ kind: 'count' });
  });

  it('hints the money an args amount means', () => {
    expect(f.moneyHint('amount', 14500, { currency: 'usd' })).toBe('$145.00');
    expect(f.moneyHint('items[0].price', 250, { currency: 'usd' })).toBe('$2.50');
    expect(f.moneyHint('reason', 'damaged', { currency: 'usd' })).toBeUndefined();
    expect(f.moneyHint('amount', 14500, {})).toBeUndefined();
  });
});

describe('reviewer page: time left', () => {
  it.each([
    [-1, 'expired', 'gone'],
    [45_000, '45s left', 'critical'],
    [(12 * 60 + 5) * 1000, '12m 05s left', 'soon'],
    [(3 * 3600 + 4 * 60) * 1000, '3h 04m left', 'later'],
    [(2 * 86400 + 3 * 3600) * 1000, '2d 3h left', 'later'],
  ])('%d ms reads "%s" (%s)', (ms, text, urgency) => {
    expect(plain(f.timeLeft(ms))).toEqual({ text, urgency });
  });
});

describe('reviewer page: args and their diff', () => {
  it('lists every leaf with its path', () => {
    expect(plain(f.leaves({ a: 1, b: { c: 'x', d: [true, { e: null }] }, f: [] }))).toEqual([
      { path: 'a', value: 1 },
      { path: 'b.c', value: 'x' },
      { path: 'b.d[0]', value: true },
      { path: 'b.d[1].e', value: null },
      { path: 'f', value: [] },
    ]);
  });

  it('diffs the requested args against those that will run, leaf by leaf', () => {
    const requested = { charge: 'ch_1', amount: 14500, reason: 'damaged', meta: { ticket: 4081, tags: ['a', 'b'] } };
    const runs = { charge: 'ch_1', amount: 5000, meta: { ticket: 4081, tags: ['a'] }, note: 'partial' };
    expect(plain(f.structuralDiff(requested, runs))).toEqual([
      { path: 'amount', kind: 'changed', before: 14500, after: 5000 },
      { path: 'reason', kind: 'removed', before: 'damaged' },
      { path: 'meta.tags[1]', kind: 'removed', before: 'b' },
      { path: 'note', kind: 'added', after: 'partial' },
    ]);
    expect(f.structuralDiff(requested, requested)).toHaveLength(0);
    // A number that became a string of the same digits is a change.
    expect(f.structuralDiff({ n: 1 }, { n: '1' })).toHaveLength(1);
  });
});

describe('reviewer page: modify fields', () => {
  it('puts a 422 problem beside the field it names, whatever the path style', () => {
    const r = f.fieldProblems([
      { path: '$.args.api_token', message: 'secret' },
      { path: 'budget', message: 'over 1,000,000 a day' },
      { path: 'args.items[2].sku', message: 'unknown sku' },
      { path: '$', message: 'malformed decision' },
    ]);
    expect(Object.fromEntries(r.byField)).toEqual({
      api_token: ['secret'],
      budget: ['over 1,000,000 a day'],
      items: ['unknown sku'],
    });
    expect(plain(r.other)).toEqual(['malformed decision']);
    expect(f.fieldProblems([[{ path: '$.args.x', message: 'nested list' }]]).byField.get('x')).toEqual(['nested list']);
    expect(f.fieldProblems(undefined).other).toHaveLength(0);
  });

  it('reads what a reviewer typed as the type the field has', () => {
    expect(plain(f.parseField('5000', 14500))).toEqual({ ok: true, value: 5000 });
    expect(plain(f.parseField('lots', 14500))).toEqual({ ok: false, problem: 'must be a number' });
    expect(plain(f.parseField('012', 'ch_1'))).toEqual({ ok: true, value: '012' });
    expect(plain(f.parseField('false', true))).toEqual({ ok: true, value: false });
    expect(plain(f.parseField('{"a":1}', { a: 2 }))).toEqual({ ok: true, value: { a: 1 } });
    expect(plain(f.parseField('{oops', { a: 2 }))).toEqual({ ok: false, problem: 'must be JSON' });
    expect(plain(f.parseField('plain words', undefined))).toEqual({ ok: true, value: 'plain words' });
  });
});

describe('reviewer page: the served script', () => {
  it('declares each top-level name once across its files (they share one global scope)', () => {
    const names = PAGE_SCRIPTS.flatMap((file) =>
      [
        ...fs
          .readFileSync(path.join(PAGE_DIR, file), 'utf8')
          .matchAll(/^(?:async )?(?:function|const|let|class) (\w+)/gm),
      ].map((m) => `${m[1]}`),
    );
    const twice = names.filter((n, i) => names.indexOf(n) !== i);
    expect(twice).toEqual([]);
  });

  it('inlines every script in order, and the CSP names the hash of exactly what is served', () => {
    const page = loadReviewerPage();
    const script = /<script>([\s\S]*)<\/script>/.exec(page.html)![1]!;
    const at = PAGE_SCRIPTS.map((name) => script.indexOf(`// ---- ${name}\n`));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    const hash = createHash('sha256').update(script, 'utf8').digest('base64');
    expect(page.csp).toContain(`script-src 'sha256-${hash}'`);
    expect(page.csp).toContain("default-src 'none'");
    expect(page.csp).not.toMatch(/unsafe|'self'.*script/);
  });
});
