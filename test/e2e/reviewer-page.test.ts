import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { ApiHarness, evidence } from './api-harness';
import { launchChromium, skipBrowserTests, until } from './browser';

// One reviewer session in a real Chromium, step by step: each `it` continues where the
// previous one left the page, as a reviewer would.
const suite = skipBrowserTests() ? describe.skip : describe;

type Ref = { request_id: string; payload_sha256: string };

suite('reviewer page in Chromium', () => {
  let h: ApiHarness;
  let browser: Browser;
  let page: Page;
  // One target shared by this file's requests, typed into the page's filter, so requests
  // of suites running in parallel on the same Temporal server do not crowd the list.
  const target = `ch_browser_${randomUUID().slice(0, 8)}`;
  let approveMe: Ref, rejectMe: Ref, modifyMe: Ref;
  const sent: string[] = []; // bodies of every decision POST the page made
  const problems: string[] = []; // script errors and CSP violations
  // GATE_SCREENSHOT_DIR keeps the screenshot for a human to look at; otherwise it is removed.
  const shotDir = process.env.GATE_SCREENSHOT_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gate-reviewer-'));

  const text = (sel: string): Promise<string> => page.locator(sel).innerText();
  const waitText = (sel: string, re: RegExp) =>
    until(`${sel} to match ${re}`, async () => (re.test(await text(sel)) ? true : undefined));
  async function create(summary: string): Promise<Ref> {
    const res = await h.create(
      evidence({ target, summary, args: { charge: target, amount: 14500, reason: 'damaged' } }),
    );
    expect(res.status).toBe(201);
    return res.body as Ref;
  }
  async function open(ref: Ref): Promise<void> {
    await page.locator('#rows tr', { hasText: ref.request_id }).click();
    await waitText('#d-title', new RegExp(ref.request_id));
  }

  beforeAll(async () => {
    browser = await launchChromium(); // first, so a missing browser fails fast with its fix
    h = await ApiHarness.start();
    approveMe = await create('Refund A: damaged shipment, ticket #4081');
    rejectMe = await create('Refund B: duplicate charge claim');
    modifyMe = await create('Refund C: partial refund requested');
    page = await browser.newPage();
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    // "Failed to load resource" is the browser logging an HTTP error status the page handles itself.
    page.on(
      'console',
      (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()),
    );
    page.on('request', (r) => r.method() === 'POST' && r.url().includes('/decision') && sent.push(r.postData() ?? ''));
  });

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
    if (!process.env.GATE_SCREENSHOT_DIR) fs.rmSync(shotDir, { recursive: true, force: true });
  });

  it('serves the page under its content security policy', async () => {
    const res = await page.goto(h.url + '/');
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect(page.title()).resolves.toBe('approval-gate reviewer');
  });

  it('shows the server refusing a wrong key', async () => {
    await page.fill('#key', 'gk_reviewer_not-a-real-key');
    await page.click('#save');
    await waitText('#msg', /401/);
  });

  it('lists the pending requests once a reviewer key is entered', async () => {
    await page.fill('#key', h.keys.reviewer);
    await page.click('#save');
    await page.fill('#target', target);
    // Visibility is eventually consistent: refresh until all three have been indexed.
    await until('all three requests listed', async () => {
      await page.click('#refresh');
      await page.waitForTimeout(300);
      const rows = await text('#rows');
      return [approveMe, rejectMe, modifyMe].every((r) => rows.includes(r.request_id)) ? rows : undefined;
    });
    await expect(page.locator('#rows tr').count()).resolves.toBe(3);
    expect(await text('#rows')).toContain('Refund A: damaged shipment');
  });

  it('shows the summary, args and payload_sha256 of the opened request', async () => {
    await open(approveMe);
    expect(await text('#d-title')).toMatch(/requested/);
    expect(await text('#d-sha')).toBe(approveMe.payload_sha256);
    expect(await text('#d-facts')).toContain('Refund A: damaged shipment, ticket #4081');
    expect(JSON.parse(await text('#d-args'))).toEqual({ charge: target, amount: 14500, reason: 'damaged' });
    expect(JSON.parse(await text('#d-evidence'))).toMatchObject({
      request_id: approveMe.request_id,
      agent_id: 'agent-1',
      target,
    });
  });

  it('renders the list and an open request to a screenshot', async () => {
    const file = path.join(shotDir, 'reviewer-page.png');
    await page.screenshot({ path: file, fullPage: true });
    expect(fs.statSync(file).size).toBeGreaterThan(0);
  });

  it('approves with a note, and the API agrees', async () => {
    await page.fill('#note', 'checked ticket #4081');
    await page.click('#approve');
    await waitText('#d-title', /approved/);
    expect(await text('#msg')).toMatch(/status approved/);
    await expect(page.locator('#actions').isHidden()).resolves.toBe(true);
    const got = await h.get(approveMe.request_id);
    expect(got.body).toMatchObject({
      status: 'approved',
      votes: [{ reviewer_id: 'rev-1', decision: 'approve', note: 'checked ticket #4081' }],
    });
    expect(JSON.parse(sent[0]!)).toMatchObject({
      decision: 'approve',
      payload_sha256: approveMe.payload_sha256,
      note: 'checked ticket #4081',
    });
  });

  it('refuses a rejection without a reason, then rejects with one', async () => {
    await open(rejectMe);
    expect(await page.inputValue('#note')).toBe(''); // the last request's note does not carry over
    const before = sent.length;
    await page.fill('#reason', '   ');
    await page.click('#reject');
    await waitText('#msg', /needs a reason/);
    expect(sent.length).toBe(before);
    expect((await h.get(rejectMe.request_id)).body.status).toBe('requested');

    await page.fill('#reason', 'duplicate of an earlier refund');
    await page.click('#reject');
    await waitText('#d-title', /denied/);
    const got = await h.get(rejectMe.request_id);
    expect(got.body).toMatchObject({
      status: 'denied',
      decision: { decision: 'reject', reviewer_id: 'rev-1', reason: 'duplicate of an earlier refund' },
    });
  });

  it('refuses modified args that are not a JSON object without sending them', async () => {
    await open(modifyMe);
    const before = sent.length;
    await page.fill('#modargs', '{"amount": 5000,');
    await page.click('#modify');
    await waitText('#msg', /not valid JSON/);
    await page.fill('#modargs', '[5000]');
    await page.click('#modify');
    await waitText('#msg', /JSON object/);
    expect(sent.length).toBe(before);
    expect((await h.get(modifyMe.request_id)).body.status).toBe('requested');
  });

  it('approves valid modified args, merged over the requested ones', async () => {
    await page.fill('#modargs', '{"amount": 5000}');
    await page.click('#modify');
    await waitText('#d-title', /approved/);
    const got = await h.get(modifyMe.request_id);
    expect(got.body).toMatchObject({
      status: 'approved',
      modified_by: 'rev-1',
      final_args: { charge: target, amount: 5000, reason: 'damaged' },
    });
    expect(JSON.parse(await text('#d-args'))).toEqual(got.body.final_args);
  });

  it('drops decided requests from the pending list', async () => {
    let rows = '';
    await until('the pending list to empty', async () => {
      await page.click('#refresh');
      await page.waitForTimeout(300);
      rows = await text('#rows');
      return rows.trim() === '' ? true : undefined;
    }).catch((e: Error) => {
      throw new Error(`${e.message}; still listed: ${rows}; message: ${problems.join(' ')}`);
    });
  });

  it('ran without script errors or content security policy violations', () => {
    expect(problems).toEqual([]);
  });
});
