import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { ApiHarness, evidence } from './api-harness';
import { launchChromium, skipBrowserTests } from './browser';
import {
  axeViolations,
  openLink,
  personPage,
  queueOf,
  screenshotDir,
  scrollWidth,
  signInWithKey,
  smallTargets,
  text,
  waitText,
} from './reviewer-page-kit';

// The reviewer page on a phone (390 px wide, touch), where a notice is usually read: one
// column, nothing wider than the screen, targets a finger can hit, deciding by tap. And
// markup in every field a request carries stays text.
const suite = skipBrowserTests() ? describe.skip : describe;

type Ref = { request_id: string; payload_sha256: string };
const WIDTH = 390;

/** Markup that would run or render if any field reached the page as HTML. */
const xss = (where: string) => `<img src=x onerror="window.__xss='${where}'"><svg onload="window.__xss='${where}'">`;

suite('reviewer page on a phone, 390 px', () => {
  let h: ApiHarness;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const shots = screenshotDir();
  const target = `ch_phone_${randomUUID().slice(0, 8)}`;
  let wide: Ref, plain: Ref;

  beforeAll(async () => {
    browser = await launchChromium();
    h = await ApiHarness.start();
    // Long values everywhere a layout can overflow: ids, nested args, long words.
    const created = await h.create(
      evidence({
        target,
        summary: 'Refund the whole order for a damaged shipment, customer asked twice (ticket #4081)',
        approvals_required: 2,
        blast_radius: { amount_cents: 1450299, currency: 'usd', line_items: 12 },
        args: {
          charge: target,
          amount: 1450299,
          reason: 'damaged',
          metadata: {
            ticket: 'support-ticket-4081-' + 'x'.repeat(80),
            items: [{ sku: 'SKU-' + 'Y'.repeat(60), qty: 2 }],
          },
        },
      }),
    );
    expect(created.status).toBe(201);
    wide = created.body as Ref;
    // Another reviewer changed the args first, so the phone shows the diff too.
    const mod = await h.decide(
      wide.request_id,
      {
        decision: 'modify',
        payload_sha256: wide.payload_sha256,
        args: { amount: 725000, reason: 'half refund agreed' },
      },
      h.keys.reviewer2,
    );
    expect(mod.status).toBe(200);
    plain = (await h.create(evidence({ target, summary: 'Refund 12 USD, wrong size' }))).body as Ref;
    ({ page } = await personPage(browser, problems, 'phone', { width: WIDTH, height: 844, touch: true }));
  });

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
    shots.cleanup();
  });

  it('signs in without a sideways scroll', async () => {
    await page.goto(h.url + '/');
    expect(await scrollWidth(page)).toBeLessThanOrEqual(WIDTH);
    expect(await smallTargets(page)).toEqual([]);
    await signInWithKey(page, h.keys.reviewer);
  });

  it('shows the queue as one column of cards, nothing wider than the screen, every target 44 px', async () => {
    await queueOf(page, target, [wide.request_id, plain.request_id]);
    await page.locator('#rows tr .impact', { hasText: '$14,502.99' }).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(WIDTH);
    expect(await smallTargets(page)).toEqual([]);
    // One column: the queue's cards and the request sit one above the other, full width.
    const queueBox = await page.locator('#queue-pane').boundingBox();
    expect(queueBox!.width).toBeGreaterThan(WIDTH - 40);
  });

  it('opens a request from a link, with its diff, still one column and nothing wider than the screen', async () => {
    await openLink(page, h.url, wide.request_id);
    await page.locator('#d-diff-box').waitFor({ state: 'visible' });
    expect(await text(page, '#d-diff')).toMatch(/amount\s+1450299 \(\$14,502\.99\)\s+725000 \(\$7,250\.00\)/);
    const detail = await page.locator('#detail').boundingBox();
    const queue = await page.locator('#queue-pane').boundingBox();
    expect(detail!.y).toBeGreaterThanOrEqual(queue!.y + queue!.height); // below the queue, not beside it
    await page.locator('#modify-box > summary').tap();
    await waitText(page, '#d-audit-verified', /chain verified/);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(WIDTH);
    expect(await smallTargets(page)).toEqual([]);
    await page.locator('#modify-box > summary').tap(); // closed again for the picture
    await page.evaluate(
      "document.activeElement.blur(); window.scrollTo(0, document.getElementById('detail').offsetTop)",
    );
    await page.screenshot({ path: path.join(shots.dir, 'reviewer-390.png') });
  });

  it('approves by tap', async () => {
    await page.locator('#note').fill('checked on the phone');
    await page.locator('#approve').tap();
    await waitText(page, '#d-status', /^approved$/);
    expect((await h.get(wide.request_id)).body).toMatchObject({
      status: 'approved',
      final_args: { amount: 725000 },
      votes: [{ reviewer_id: 'rev-2' }, { reviewer_id: 'rev-1', note: 'checked on the phone' }],
    });
  });

  it('keeps markup in every field inert: shown as text, never run or rendered', async () => {
    const res = await h.create({
      correlation_id: 'corr' + xss('correlation_id'),
      trigger_event_id: 'evt' + xss('trigger_event_id'),
      action: 'stripe.refund.create',
      target,
      summary: xss('summary'),
      blast_radius: { [xss('bk').slice(0, 60)]: 1, note: xss('bv').slice(0, 60) },
      args: { [xss('arg key')]: xss('arg value'), nested: { deep: [xss('nested')] } },
      preconditions: { [xss('pre key')]: xss('pre value') },
    });
    expect(res.status).toBe(201);
    const ref = res.body as Ref;
    // Fields other parts of the gate add (a policy verdict, an escalation chain), with markup too.
    await page.route(`**/v1/approvals/${ref.request_id}`, async (route) => {
      const r = await route.fetch();
      const body = (await r.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      body.payload.policy = { rule_id: xss('rule'), effect: 'require', reason: xss('policy reason') };
      body.payload.escalation = { levels: [{ after: xss('after'), notify: [xss('notify')], roles: [xss('role')] }] };
      body.escalation_level = xss('level');
      await route.fulfill({ response: r, json: body });
    });
    await openLink(page, h.url, ref.request_id);
    await page.fill('#note', xss('note'));
    await page.fill('#reason', xss('reason'));
    await page.locator('#reject').tap();
    await waitText(page, '#d-status', /^denied$/);
    await waitText(page, '#d-audit', /approval\.denied/);
    await page.locator('#detail details').last().locator('summary').tap(); // the full payload, too
    await page.selectOption('#status', '');
    await queueOf(page, target, [ref.request_id], false);

    expect(await text(page, '#d-summary')).toBe(xss('summary'));
    const all = await text(page, '#app');
    for (const where of [
      'arg key',
      'arg value',
      'nested',
      'pre key',
      'bv',
      'rule',
      'policy reason',
      'notify',
      'role',
      'level',
      'reason',
    ])
      expect(all).toContain(`window.__xss='${where}'`);
    await expect(page.evaluate('window.__xss')).resolves.toBeUndefined();
    await expect(page.evaluate("document.querySelectorAll('#app img, #app svg, #app script').length")).resolves.toBe(0);
    // A handler still running for the page's last poll must not fail the next test once it is unrouted.
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  it('has no serious or critical accessibility violations (axe-core)', async () => {
    await openLink(page, h.url, plain.request_id);
    await waitText(page, '#d-audit-verified', /chain verified/);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('ran without script errors or content security policy violations', () => {
    expect(problems).toEqual([]);
  });
});
