import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { waitFor } from '../support/wait';

// What the reviewer page's browser tests share: a page per person, sign-in, the queue
// filtered to one test's requests, and the checks every width gets (no sideways scroll,
// touch-sized targets, axe-core).

const ROOT = path.resolve(__dirname, '../..');

/**
 * Where screenshots go: GATE_SCREENSHOT_DIR when set (`GATE_SCREENSHOT_DIR=docs/images`
 * renews the ones docs/reviewers.md shows), else a temporary folder removed afterwards.
 */
export function screenshotDir(): { dir: string; cleanup(): void } {
  const set = process.env.GATE_SCREENSHOT_DIR;
  if (set) {
    const dir = path.resolve(ROOT, set);
    fs.mkdirSync(dir, { recursive: true });
    return { dir, cleanup: () => undefined };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-reviewer-'));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A person's page: its own context (storage), script errors and CSP violations collected in `problems`. */
export async function personPage(
  browser: Browser,
  problems: string[],
  who: string,
  opts: { width: number; height?: number; touch?: boolean } = { width: 1280 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: opts.width, height: opts.height ?? 900 },
    hasTouch: opts.touch ?? false,
    isMobile: opts.touch ?? false,
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`${who}: page error: ${e.message}`));
  // "Failed to load resource" is the browser logging an HTTP error status the page handles itself.
  page.on(
    'console',
    (m) =>
      m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(`${who}: ${m.text()}`),
  );
  return { context, page };
}

export const text = (page: Page, sel: string): Promise<string> => page.locator(sel).innerText();

export function waitText(page: Page, sel: string, re: RegExp, ms?: number): Promise<string> {
  return waitFor(
    `${sel} to match ${re}`,
    async () => {
      const t = await text(page, sel).catch(() => '');
      return re.test(t) ? t : undefined;
    },
    ms,
  );
}

/** Signs in with a reviewer API key on the page as it is (the sign-in form must show). */
export async function signInWithKey(page: Page, key: string): Promise<void> {
  await page.locator('#key').fill(key);
  await page.click('#save');
  await page.locator('#app').waitFor({ state: 'visible' });
}

/**
 * Filters the queue to one target and waits until it lists `ids` (visibility lags); with
 * `exact`, nothing else. Returns the row ids in order.
 */
export async function queueOf(page: Page, target: string, ids: string[], exact = true): Promise<string[]> {
  if (!(await page.locator('#target').isVisible())) await page.click('#filters-box > summary'); // folded on phones
  if ((await page.inputValue('#target')) !== target) {
    await page.fill('#target', target);
    await page.press('#target', 'Enter');
  }
  return waitFor(`the queue to list ${ids.join(', ')}`, async () => {
    const listed = await rowIds(page);
    if (ids.every((id) => listed.includes(id)) && (!exact || listed.length === ids.length)) return listed;
    await page.click('#refresh');
    await page.waitForTimeout(300);
    return undefined;
  });
}

export function rowIds(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`Array.from(document.querySelectorAll('#rows tr')).map((tr) => tr.dataset.id || '')`);
}

export const row = (page: Page, id: string) => page.locator(`#rows tr[data-id="${id}"]`);

/** Opens a request by its deep link and waits for its detail. */
export async function openLink(page: Page, base: string, id: string): Promise<void> {
  await page.goto(`${base}/#/approvals/${encodeURIComponent(id)}`);
  await waitText(page, '#d-id', new RegExp(`^${id}$`));
}

/** The page's width as laid out, against the viewport: more means a sideways scroll. */
export function scrollWidth(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth');
}

/** Visible controls a finger taps that are smaller than 44 x 44 CSS px, described. */
export function smallTargets(page: Page): Promise<string[]> {
  // A string, run in the page: this project's TypeScript has no DOM types.
  return page.evaluate<string[]>(`(() => {
    const out = [];
    const controls = document.querySelectorAll('button, a[href], input, select, summary, label.tap, label.check');
    for (const e of controls) {
      if (e.closest('[hidden]') || e.closest('dialog:not([open])')) continue;
      // A checkbox is tapped through its label, which is what must be large.
      if (e.type === 'checkbox' && e.closest('label')) continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.height < 44 || r.width < 44)
        out.push(e.tagName.toLowerCase() + '#' + (e.id || e.className) + ': ' + Math.round(r.width) + 'x' + Math.round(r.height));
    }
    return out;
  })()`);
}

/**
 * axe-core's serious and critical violations on the page as it is. axe.min.js is put in
 * with page.evaluate (a DevTools evaluation, which the page's CSP does not govern), so
 * the page keeps its strict CSP for the run: no bypassCSP needed.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const source = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const result = await page.evaluate<{
    violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
    passes: unknown[];
  }>(`axe.run(document, { resultTypes: ['violations'] })`);
  // A run that checked nothing would pass anything.
  if (result.passes.length === 0) throw new Error('axe-core ran no check');
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
