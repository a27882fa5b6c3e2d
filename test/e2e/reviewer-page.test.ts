import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { ApiHarness, evidence } from './api-harness';
import { launchChromium, skipBrowserTests } from './browser';
import { waitFor } from '../support/wait';
import {
  axeViolations,
  openLink,
  personPage,
  queueOf,
  row,
  rowIds,
  screenshotDir,
  signInWithKey,
  text,
  waitText,
} from './reviewer-page-kit';

// A reviewer's session in a real Chromium 1280 px wide, step by step: each `it` continues
// where the previous one left the page, as a reviewer would. The browser's clock runs
// three hours fast, so every countdown the page shows must come from the server's clock.
const suite = skipBrowserTests() ? describe.skip : describe;

type Ref = { request_id: string; payload_sha256: string };
const SKEW_MS = 3 * 3600_000;

suite('reviewer page in Chromium, 1280 px', () => {
  let h: ApiHarness;
  let browser: Browser;
  let page: Page;
  const problems: string[] = []; // script errors and CSP violations, of every page
  const sent: { url: string; body: Record<string, unknown> }[] = []; // every decision POST the first page made
  const shots = screenshotDir();
  const tag = randomUUID().slice(0, 8);
  // One target per step's requests, typed into the page's filter, so the queue holds what
  // the step is about (and not the requests of suites running in parallel).
  const T = { main: `ch_main_${tag}`, bulk: `ch_bulk_${tag}`, keys: `ch_keys_${tag}` };
  let soon: Ref, refund: Ref, quorum: Ref, rejectMe: Ref;

  async function create(target: string, summary: string, over: Record<string, unknown> = {}): Promise<Ref> {
    const res = await h.create(
      evidence({
        target,
        summary,
        blast_radius: { amount_cents: 14502, currency: 'usd', customers: 1200 },
        args: { charge: target, amount: 14500, reason: 'damaged' },
        ...over,
      }),
    );
    expect(res.status).toBe(201);
    return res.body as Ref;
  }
  const id = (r: Ref) => r.request_id;

  beforeAll(async () => {
    browser = await launchChromium(); // first, so a missing browser fails fast with its fix
    h = await ApiHarness.start();
    refund = await create(T.main, 'Refund A: damaged shipment, ticket #4081', { ttl_seconds: 3600 });
    soon = await create(T.main, 'Refund B: duplicate charge, expires first', { ttl_seconds: 1800 });
    quorum = await create(T.main, 'Refund C: two reviewers, partial refund', {
      ttl_seconds: 7200,
      approvals_required: 2,
    });
    rejectMe = await create(T.main, 'Refund D: claim without a receipt', { ttl_seconds: 5400 });
    ({ page } = await personPage(browser, problems, 'rev-1'));
    await page.clock.install({ time: Date.now() + SKEW_MS }); // the browser's clock, three hours fast
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/decision'))
        sent.push({ url: r.url(), body: JSON.parse(r.postData() ?? '{}') as Record<string, unknown> });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
    shots.cleanup();
  });

  it('serves the page under its content security policy', async () => {
    const res = await page.goto(h.url + '/');
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect(page.title()).resolves.toBe('approval-gate reviewer');
    await expect(page.locator('#signin').isVisible()).resolves.toBe(true);
    await expect(page.locator('#app').isHidden()).resolves.toBe(true); // no queue before a sign-in
    expect(await text(page, '#signin')).toMatch(/gate keys create --kind reviewer/);
  });

  it('shows the server refusing a wrong key, and keeps the sign-in', async () => {
    await page.fill('#key', 'gk_reviewer_not-a-real-key');
    await page.click('#save');
    await waitText(page, '#msg', /401/);
    await page.locator('#signin').waitFor({ state: 'visible' });
  });

  it('signs in with a reviewer key and lists the queue by expiry, soonest first', async () => {
    await signInWithKey(page, h.keys.reviewer);
    const order = await queueOf(page, T.main, [refund, soon, quorum, rejectMe].map(id));
    expect(order).toEqual([soon, refund, rejectMe, quorum].map(id));
    await waitText(page, '#who-name', /^rev-1$/);
  });

  it("counts down to expiry on the server's clock, each second", async () => {
    const left = row(page, id(refund)).locator('.left');
    const first = await left.innerText();
    // 60 minutes from creation on the server; the browser's own clock would say "expired".
    expect(first).toMatch(/^(59|60)m \d\ds left$/);
    const later = await waitFor('the countdown to tick', async () => {
      const t = await left.innerText();
      return t !== first ? t : undefined;
    });
    const secs = (t: string) => Number(/(\d+)m (\d+)s/.exec(t)![1]) * 60 + Number(/(\d+)m (\d+)s/.exec(t)![2]);
    expect(secs(later)).toBeLessThan(secs(first));
    expect(await row(page, id(soon)).locator('.left').innerText()).toMatch(/^(29|30)m \d\ds left$/);
  });

  it('shows blast radius as money when a currency is named, and counts as counts', async () => {
    await waitFor('the rows to be read', async () =>
      (await row(page, id(refund)).locator('.impact').innerText()).includes('$145.02') ? true : undefined,
    );
    expect(await row(page, id(refund)).locator('.impact').innerText()).toBe('amount $145.02, customers 1,200');
  });

  it('adds a new request to the queue on its own', async () => {
    const late = await create(T.main, 'Refund E: arrives while the page is open', { ttl_seconds: 600 });
    await waitFor(
      'the new request to show without a click',
      async () => ((await rowIds(page)).includes(id(late)) ? true : undefined),
      20_000,
    );
    expect((await rowIds(page))[0]).toBe(id(late)); // it expires first
    const res = await h.decide(id(late), { decision: 'reject', payload_sha256: late.payload_sha256, reason: 'test' });
    expect(res.status).toBe(200);
  });

  it('opens a request by its deep link, with everything a reviewer decides on', async () => {
    await openLink(page, h.url, id(refund));
    expect(await text(page, '#d-summary')).toBe('Refund A: damaged shipment, ticket #4081');
    expect(await text(page, '#d-sha')).toBe(refund.payload_sha256);
    expect(await text(page, '#d-left')).toMatch(/^(59|60)m \d\ds left$/);
    const facts = await text(page, '#d-facts');
    expect(facts).toMatch(/action\s+stripe\.refund\.create/);
    expect(facts).toMatch(new RegExp(`target\\s+${T.main}`));
    expect(facts).toMatch(/agent\s+agent-1/);
    expect(await text(page, '#d-blast')).toMatch(/amount\s+\$145\.02[\s\S]*customers\s+1,200/);
    const args = await text(page, '#d-args');
    expect(args).toMatch(/amount\s+14500 \(\$145\.00\)/);
    expect(args).toMatch(/reason\s+damaged/);
    await expect(page.locator('#d-diff-box').isHidden()).resolves.toBe(true);
    expect(await text(page, '#d-snapshot')).toMatch(/external executor/);
    expect(await text(page, '#d-policy')).toMatch(/No policy rule named this request/);
    expect(await text(page, '#d-votes')).toMatch(/0 of 1 approvals/);
    await waitText(page, '#d-audit-verified', /^chain verified \(1 events\)$/);
    expect(await text(page, '#d-audit')).toMatch(/approval\.requested\s+agent:agent-1/);
    await expect(page.locator('#approve').isVisible()).resolves.toBe(true);
  });

  it('shows the policy rule, why it applied, and the escalation chain the request carries', async () => {
    // The request's own chain comes from the server as the gate holds it; a policy file's
    // verdict (none in this harness) is added to the real answer for this one request.
    const extra = await create(T.main, 'Refund F: policy and escalation shown', {
      reviewer_roles: ['finance'],
      ttl_seconds: 6000,
      escalation: {
        levels: [
          { after: '30m', roles: ['cfo'] },
          { after: 5400, roles: ['ceo'] },
        ],
      },
    });
    await page.route(`**/v1/approvals/${id(extra)}`, async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      body.payload.policy = {
        rule_id: 'large-refunds',
        effect: 'require',
        when: 'args.amount > 10000',
        values: { 'args.amount': 14500 },
      };
      await route.fulfill({ response: res, json: body });
    });
    await openLink(page, h.url, id(extra));
    const policy = await text(page, '#d-policy');
    expect(policy).toMatch(/Rule "large-refunds" decided: require/);
    expect(policy).toMatch(/when\s+args\.amount > 10000/);
    expect(policy).toMatch(
      /Rule "stripe\.refund\.create"|No rule matched stripe\.refund\.create; the request itself asked for 1 approval\(s\) from finance/,
    );
    const esc = await text(page, '#d-escalation');
    expect(esc).toMatch(/Escalation now: not escalated yet/);
    expect(esc).toMatch(/1\s+after 30m\s+(—\s+)?cfo/);
    expect(esc).toMatch(/2\s+after 1h 30m\s+(—\s+)?ceo/);
    // A handler still running for the page's last poll must not fail the next test once it is unrouted.
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  it('refuses a rejection without a reason without sending it, then rejects with one', async () => {
    await openLink(page, h.url, id(rejectMe));
    const before = sent.length;
    await page.click('#reject');
    await waitText(page, '#msg', /needs a reason/);
    expect(sent.length).toBe(before);
    await page.fill('#reason', 'no receipt attached');
    await page.click('#reject');
    await waitText(page, '#d-status', /denied/);
    const got = await h.get(id(rejectMe));
    expect(got.body).toMatchObject({
      status: 'denied',
      decision: { reviewer_id: 'rev-1', reason: 'no receipt attached' },
    });
    expect(await text(page, '#d-cannot')).toBe('This request is denied; it takes no more decisions.');
    await expect(page.locator('#actions').isHidden()).resolves.toBe(true);
  });

  it("shows modify's field problems beside the fields: the page's own, and the server's 422", async () => {
    await openLink(page, h.url, id(quorum));
    await page.click('#modify-box > summary');
    const fieldRow = (name: string) => page.locator(`#mod-fields tr[data-field="${name}"]`);
    await fieldRow('amount').locator('input').fill('lots');
    const before = sent.length;
    await page.click('#modify');
    await waitText(page, '#mod-fields tr[data-field="amount"] .problem', /must be a number/);
    expect(sent.length).toBe(before);

    await fieldRow('amount').locator('input').fill('5000');
    await fieldRow('reason')
      .locator('input')
      .fill('token=ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2');
    await page.click('#modify');
    await waitText(page, '#msg', /modify refused: 422/);
    expect(await fieldRow('reason').locator('.problem').innerText()).toMatch(/secret/);
    expect(await fieldRow('amount').locator('.problem').innerText()).toBe('');
    await expect(fieldRow('reason').locator('input').getAttribute('aria-invalid')).resolves.toBe('true');
    expect((await h.get(id(quorum))).body).toMatchObject({ status: 'requested', votes: [] });
  });

  it('modifies the args, and then shows what changed against the request', async () => {
    await page.locator('#mod-fields tr[data-field="reason"] input').fill('partial refund agreed');
    await page.click('#modify');
    await waitText(page, '#msg', /modify recorded .*status requested, approvals 1 of 2/);
    await page.locator('#d-diff-box').waitFor({ state: 'visible' });
    const diff = await text(page, '#d-diff');
    expect(diff).toMatch(/amount\s+14500 \(\$145\.00\)\s+5000 \(\$50\.00\)/);
    expect(diff).toMatch(/reason\s+damaged\s+partial refund agreed/);
    expect(diff).not.toMatch(/charge/);
    expect(await text(page, '#d-args-h')).toBe('Args that will run (modified by rev-1)');
    expect(await text(page, '#d-args')).toMatch(/amount\s+5000 \(\$50\.00\)/);
    // rev-1's modify was its vote: it now sees why it cannot decide, not buttons.
    expect(await text(page, '#d-cannot')).toMatch(
      /You already approved this request; it needs 2 distinct reviewers \(1 so far\)/,
    );
    await expect(page.locator('#approve').isVisible()).resolves.toBe(false);
    expect(await text(page, '#d-votes')).toMatch(/1 of 2 approvals[\s\S]*rev-1\s+modify/);
  });

  it('sends a second reviewer by a deep link to the same diff, and its approval completes the quorum', async () => {
    const { context, page: p2 } = await personPage(browser, problems, 'rev-2');
    await p2.goto(`${h.url}/#/approvals/${encodeURIComponent(id(quorum))}`);
    await waitText(p2, '#msg', new RegExp(`sign in to open request ${id(quorum)}`));
    await signInWithKey(p2, h.keys.reviewer2);
    await waitText(p2, '#d-id', new RegExp(`^${id(quorum)}$`));
    await queueOf(p2, T.main, [id(quorum)], false);
    await p2.locator('#d-diff-box').waitFor({ state: 'visible' });
    expect(await text(p2, '#d-diff')).toMatch(/amount\s+14500 \(\$145\.00\)\s+5000 \(\$50\.00\)/);
    await expect(p2.locator('#approve').isVisible()).resolves.toBe(true);
    await waitText(p2, '#d-audit-verified', /chain verified/);
    await p2.evaluate('document.activeElement.blur()');
    await p2.screenshot({ path: path.join(shots.dir, 'reviewer-1280.png') });
    await p2.fill('#note', 'diff checked');
    await p2.click('#approve');
    await waitText(p2, '#d-status', /^approved$/);
    const got = (await h.get(id(quorum))).body;
    expect(got).toMatchObject({ status: 'approved', final_args: { amount: 5000, reason: 'partial refund agreed' } });
    expect(got.votes.map((v: { reviewer_id: string }) => v.reviewer_id)).toEqual(['rev-1', 'rev-2']);
    await context.close();
  });

  it('shows the requester why it cannot decide, instead of buttons', async () => {
    const { context, page: p3 } = await personPage(browser, problems, 'agent-1 as reviewer');
    await p3.goto(h.url + '/');
    await signInWithKey(p3, h.keys.agentAsReviewer);
    await openLink(p3, h.url, id(refund));
    expect(await text(p3, '#d-cannot')).toMatch(/You requested this action \(as agent-1\), so you cannot decide on it/);
    await expect(p3.locator('#actions').isHidden()).resolves.toBe(true);
    await queueOf(p3, T.main, [id(refund)], false);
    await expect(row(p3, id(refund)).locator('.viewonly').innerText()).resolves.toBe('view only');
    await expect(row(p3, id(refund)).locator('input[type=checkbox]').isDisabled()).resolves.toBe(true);
    await context.close();
  });

  it('bulk-approves three: each sent with its own hash and answered on its own, the one with a stale hash refused', async () => {
    const x1 = await create(T.bulk, 'Bulk 1: refund', { ttl_seconds: 3000 });
    const x2 = await create(T.bulk, 'Bulk 2: refund', { ttl_seconds: 3100 });
    const x3 = await create(T.bulk, 'Bulk 3: refund, two reviewers', { ttl_seconds: 3200, approvals_required: 2 });
    await page.goto(h.url + '/');
    await queueOf(page, T.bulk, [x1, x2, x3].map(id));
    await waitFor('the page to read the three', async () =>
      (await page.locator('#rows .impact').allInnerTexts()).every((t) => t.includes('$145.02')) ? true : undefined,
    );
    await page.uncheck('#auto'); // hold the page still: what it read is what it sends
    // Another reviewer modifies the third after the page read it: the args hash the page holds is stale.
    const mod = await h.decide(
      id(x3),
      { decision: 'modify', payload_sha256: x3.payload_sha256, args: { amount: 100 } },
      h.keys.reviewer2,
    );
    expect(mod.status).toBe(200);
    await page.check('#select-all');
    await waitText(page, '#bulk-approve', /Approve selected \(3\)/);
    const before = sent.length;
    await page.click('#bulk-approve');
    await waitText(page, '#msg', /bulk approve: 2 of 3 taken/);
    const results: Record<string, string> = {};
    for (const li of await page.locator('#bulk-results li').all())
      results[(await li.getAttribute('data-id')) ?? ''] = `${await li.getAttribute('class')}: ${await li.innerText()}`;
    expect(results[id(x1)]).toMatch(/^ok: .*approve recorded, status approved/);
    expect(results[id(x2)]).toMatch(/^ok: .*approve recorded, status approved/);
    expect(results[id(x3)]).toMatch(/^bad: .*refused: 409 hash_mismatch: .*args_sha256/);
    const bodies = sent.slice(before);
    expect(bodies).toHaveLength(3);
    for (const x of [x1, x2, x3]) {
      const b = bodies.find((s) => s.url.endsWith(`/v1/approvals/${id(x)}/decision`))!;
      expect(b.body).toMatchObject({ decision: 'approve', payload_sha256: x.payload_sha256 });
    }
    expect(new Set(bodies.map((b) => b.body.decision_id)).size).toBe(3);
    expect((await h.get(id(x1))).body.status).toBe('approved');
    expect((await h.get(id(x2))).body.status).toBe('approved');
    expect((await h.get(id(x3))).body).toMatchObject({ status: 'requested', votes: [{ reviewer_id: 'rev-2' }] });
    await page.check('#auto');
  });

  it('walks the keyboard path: j/k to move, a to approve, r and a reason to reject, x to pick, ? for help', async () => {
    const k1 = await create(T.keys, 'Keys 1: approve me', { ttl_seconds: 1000 });
    const k2 = await create(T.keys, 'Keys 2: reject me', { ttl_seconds: 1100 });
    const k3 = await create(T.keys, 'Keys 3: pick me', { ttl_seconds: 1200 });
    await page.goto(h.url + '/');
    await queueOf(page, T.keys, [k1, k2, k3].map(id));
    await page.locator('#target').focus();
    await page.keyboard.press('Escape'); // out of the filter field: the keys are the page's again
    await page.keyboard.press('j');
    await waitText(page, '#d-id', new RegExp(`^${id(k1)}$`));
    await page.keyboard.press('j');
    await waitText(page, '#d-id', new RegExp(`^${id(k2)}$`));
    await page.keyboard.press('k');
    await waitText(page, '#d-id', new RegExp(`^${id(k1)}$`));
    expect(page.url()).toBe(`${h.url}/#/approvals/${encodeURIComponent(id(k1))}`);
    await page.keyboard.press('a');
    await waitText(page, '#d-status', /^approved$/);
    expect((await h.get(id(k1))).body.status).toBe('approved');

    await page.keyboard.press('j');
    await waitText(page, '#d-id', new RegExp(`^${id(k2)}$`));
    await page.keyboard.press('r');
    await expect(page.evaluate('document.activeElement.id')).resolves.toBe('reason');
    await page.keyboard.type('not needed any more');
    await page.keyboard.press('Enter');
    await waitText(page, '#d-status', /^denied$/);
    expect((await h.get(id(k2))).body).toMatchObject({ status: 'denied', decision: { reason: 'not needed any more' } });

    await page.keyboard.press('Escape'); // out of the reason field
    await waitFor('the decided requests to leave the queue', async () => {
      const ids = await rowIds(page);
      return ids.length === 1 && ids[0] === id(k3) ? true : undefined;
    });
    await page.keyboard.press('j');
    await waitText(page, '#d-id', new RegExp(`^${id(k3)}$`));
    await page.keyboard.press('x');
    await waitText(page, '#bulk-approve', /Approve selected \(1\)/);
    await page.keyboard.press('?');
    await expect(page.locator('#help').isVisible()).resolves.toBe(true);
    expect(await text(page, '#help')).toMatch(/j \/ k[\s\S]*a[\s\S]*r[\s\S]*\?/);
    await page.keyboard.press('Escape');
    await expect(page.locator('#help').isVisible()).resolves.toBe(false);
  });

  it('shows a decision the server accepted to apply later (202) as accepted, pending, and follows it until it lands', async () => {
    const later = await create(T.main, 'Refund G: decided now, applied later', { ttl_seconds: 4000 });
    const path = `/v1/approvals/${id(later)}/decision`;
    let held: Record<string, unknown> | undefined;
    // The server's answer when a decision is stored durably and applied after the answer:
    // 202 with the request still requested. Here the page's own decision is held and applied
    // once the test has seen the page say so.
    await page.route(`**${path}`, async (route) => {
      held = JSON.parse(route.request().postData() ?? '{}') as Record<string, unknown>;
      await route.fulfill({
        status: 202,
        json: { decision_accepted: true, request_id: id(later), decision_id: held.decision_id, status: 'requested' },
      });
    });
    await openLink(page, h.url, id(later));
    await page.click('#approve');
    await waitText(page, '#msg', /approve accepted, pending/);
    await expect(page.locator('#pending').isVisible()).resolves.toBe(true);
    await page.waitForTimeout(2500); // the page keeps reading meanwhile, and keeps saying pending
    await expect(page.locator('#pending').isVisible()).resolves.toBe(true);
    expect((await h.get(id(later))).body.status).toBe('requested');
    expect((await h.decide(id(later), held!)).status).toBe(200); // applied now, as the page sent it
    await waitText(page, '#d-status', /^approved$/, 20_000);
    await waitText(page, '#msg', /was applied: status approved/);
    await expect(page.locator('#pending').isHidden()).resolves.toBe(true);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  it('has no serious or critical accessibility violations (axe-core)', async () => {
    await openLink(page, h.url, id(quorum)); // the richest view: diff, votes, a decided state
    await waitText(page, '#d-audit-verified', /chain verified/);
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(h.url + '/');
    await queueOf(page, T.main, [id(refund), id(soon)], false);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('ran without script errors or content security policy violations', () => {
    expect(problems).toEqual([]);
  });
});
