import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { startDevServer, type DevServer } from '../../src/dev/temporal-cli';
import { freePort } from '../support/ports';
import { ApiHarness, evidence } from './api-harness';
import { launchChromium, skipBrowserTests } from './browser';
import { waitFor } from '../support/wait';
import { screenshotDir } from './reviewer-page-kit';

// The Temporal Web UI of a dev server started with its UI on (as `gate dev` does), in
// Chromium: pending gates are found by the GateStatus search attribute, and a decided one
// drops out of the filter.
const suite = skipBrowserTests() ? describe.skip : describe;

suite('Temporal Web UI filtered by GateStatus', () => {
  let server: DevServer;
  let h: ApiHarness;
  let browser: Browser;
  let page: Page;
  const shots = screenshotDir();
  const suiteAddress = process.env.TEMPORAL_ADDRESS;
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-ui-'));

  beforeAll(async () => {
    browser = await launchChromium();
    const port = await freePort();
    server = await startDevServer({
      port,
      uiPort: await freePort(),
      headless: false,
      logFile: path.join(logDir, 'temporal.log'),
    });
    // This file's gates live on the server with the UI, not on the suite's headless one.
    process.env.TEMPORAL_ADDRESS = server.address;
    h = await ApiHarness.start();
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  });

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
    await server?.stop();
    process.env.TEMPORAL_ADDRESS = suiteAddress;
    fs.rmSync(logDir, { recursive: true, force: true });
    shots.cleanup();
  });

  it('lists the requested gates, and not a decided one, under GateStatus="requested"', async () => {
    const tag = randomUUID().slice(0, 6);
    const made: { request_id: string; payload_sha256: string }[] = [];
    for (const [summary, target] of [
      ['Refund 145.02 USD: damaged shipment', `ch_ui_${tag}_a`],
      ['Deploy api v2.3.1 to production', `svc_api_${tag}`],
      ['Delete 1,200 stale rows from orders', `db_orders_${tag}`],
    ]) {
      const res = await h.create(evidence({ summary, target }));
      expect(res.status).toBe(201);
      made.push(res.body);
    }
    const [pending1, decided, pending2] = made as [(typeof made)[0], (typeof made)[0], (typeof made)[0]];
    const ok = await h.decide(decided.request_id, { decision: 'approve', payload_sha256: decided.payload_sha256 });
    expect(ok.status).toBe(200);

    const url = `${server.uiUrl}/namespaces/default/workflows?query=GateStatus%3D%22requested%22`;
    const shown = await waitFor(
      'the UI to list the requested gates only',
      async () => {
        await page.goto(url);
        await page.waitForLoadState('networkidle').catch(() => undefined);
        const body = await page.locator('body').innerText();
        const want = [pending1, pending2].every((g) => body.includes(g.request_id));
        return want && !body.includes(decided.request_id) ? body : undefined;
      },
      60_000,
    );
    expect(shown).toContain('approvalGateWorkflow');
    await page.screenshot({ path: path.join(shots.dir, 'temporal-ui-gatestatus.png') });
  });
});
