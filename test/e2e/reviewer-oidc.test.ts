import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { OidcVerifier, type OidcSettings } from '../../src/api/oidc';
import { validatePolicy } from '../../src/policy/reviewer-policy';
import { startIdp, type TestIdp } from '../support/oidc-idp';
import { freePort } from '../support/ports';
import { ApiHarness, evidence } from './api-harness';
import { launchChromium, skipBrowserTests } from './browser';
import { waitFor } from '../support/wait';

// People sign in to the reviewer page at a real OpenID provider (oidc-provider, its own
// process), through its authorization-code flow in headless Chromium: the login form, the
// consent screen, the redirect back. Decisions then carry the person's subject and roles.
const suite = skipBrowserTests() ? describe.skip : describe;

const POLICY_SHA = 'd'.repeat(64);
type Ref = { request_id: string; payload_sha256: string };

suite('reviewer sign-in with OpenID Connect', () => {
  let idp: TestIdp;
  let h: ApiHarness;
  let browser: Browser;
  let settings: OidcSettings;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];
  const target = `ch_oidc_${randomUUID().slice(0, 8)}`;
  let refund: Ref;
  let aliceToken = '';

  async function signIn(login: string): Promise<Page> {
    const context = await browser.newContext(); // one person per context: no shared cookies or storage
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`${login}: page error: ${e.message}`));
    await page.goto(h.url + '/');
    await page.locator('#sso').waitFor({ state: 'visible' });
    await page.click('#sso');
    // The IdP's own pages: its login form, then its consent screen.
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.click('button[type="submit"]');
    await page.locator('button:has-text("Continue")').click();
    await page.waitForURL(`${h.url}/`);
    await page.fill('#target', target);
    await waitFor(`${login} to see the refund listed`, async () => {
      await page.click('#refresh');
      await page.waitForTimeout(300);
      return (await page.locator(`#rows tr[data-id="${refund.request_id}"]`).count()) > 0 ? true : undefined;
    });
    return page;
  }

  async function approveIn(page: Page): Promise<string> {
    await page.locator(`#rows tr[data-id="${refund.request_id}"]`).click();
    await waitFor('the request to open', async () =>
      (await page.locator('#d-id').innerText()).includes(refund.request_id) ? true : undefined,
    );
    await page.click('#approve');
    return waitFor('a decision message', async () => {
      const m = await page.locator('#msg').innerText();
      return /recorded|refused/.test(m) ? m : undefined;
    });
  }

  beforeAll(async () => {
    browser = await launchChromium();
    const apiPort = await freePort();
    const redirectUri = `http://127.0.0.1:${apiPort}/auth/callback`;
    idp = await startIdp({
      redirectUri,
      accounts: {
        alice: { name: 'Alice Finance', roles: ['finance'] },
        bob: { name: 'Bob Engineer', roles: ['engineering'] },
        carol: { name: 'Carol Controller', roles: ['finance', 'audit'] },
      },
    });
    settings = {
      issuer: idp.issuer,
      audience: idp.clientId,
      rolesClaim: 'roles',
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      redirectUri,
      scopes: 'openid profile roles',
      tenant: 'default',
    };
    const policy = validatePolicy(
      { rules: [{ action: 'stripe.refund.*', roles: ['finance'], min_approvals: 2 }] },
      POLICY_SHA,
      'rules.yaml',
    );
    h = await ApiHarness.start({ port: apiPort, oidc: settings, policy });
    const res = await h.create(evidence({ target, summary: 'Refund 145 USD, ticket #4081' }));
    expect(res.status).toBe(201);
    refund = res.body as Ref;
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await h?.stop();
    await idp?.stop();
  });

  it('signs a person in through the IdP and keeps the ID token for the tab, out of the address bar', async () => {
    const page = await signIn('alice');
    expect(page.url()).toBe(`${h.url}/`);
    aliceToken = (await page.evaluate<string | null>('sessionStorage.getItem("gate.reviewerKey")')) ?? '';
    expect(aliceToken.split('.')).toHaveLength(3);
    const approve = await approveIn(page);
    expect(approve).toMatch(/approve recorded .*approvals 1 of 2/);
  });

  it('shows a person without the rule’s role why instead of buttons; the API refuses them with 403 and audits it', async () => {
    const page = await signIn('bob');
    await page.locator(`#rows tr[data-id="${refund.request_id}"]`).click();
    await waitFor('the reason instead of buttons', async () =>
      /needs one of the roles finance; you have engineering/.test(await page.locator('#d-cannot').innerText())
        ? true
        : undefined,
    );
    await expect(page.locator('#approve').isVisible()).resolves.toBe(false);
    // Sent anyway, with the page's own token, the server refuses it as the page said it would.
    const bobToken = (await page.evaluate<string | null>('sessionStorage.getItem("gate.reviewerKey")')) ?? '';
    const refused = await h.http('POST', `/v1/approvals/${refund.request_id}/decision`, {
      key: bobToken,
      body: { decision: 'approve', payload_sha256: refund.payload_sha256 },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/bob may not decide stripe\.refund\.create: .*finance/);
    await waitFor('the refusal in the trail', async () => {
      const a = await h.audit_(refund.request_id);
      return a.body.events.some(
        (e: { event_type: string; actor_id: string }) => e.event_type === 'decision.refused' && e.actor_id === 'bob',
      )
        ? true
        : undefined;
    });
    const got = await h.get(refund.request_id);
    expect(got.body).toMatchObject({ status: 'requested', votes: [{ reviewer_id: 'alice' }] });
  });

  it('reaches the quorum with a second eligible person; the trail names both subjects and the rule', async () => {
    const page = await signIn('carol');
    expect(await approveIn(page)).toMatch(/status approved, approvals 2 of 2/);
    const got = await h.get(refund.request_id);
    expect(got.body.votes.map((v: { reviewer_id: string }) => v.reviewer_id)).toEqual(['alice', 'carol']);
    const events = (await h.audit_(refund.request_id)).body.events as {
      event_type: string;
      actor_id: string;
      data?: Record<string, unknown>;
    }[];
    expect(events.find((e) => e.event_type === 'approval.approved')).toMatchObject({
      actor_id: 'carol',
      data: { reviewers: ['alice', 'carol'] },
    });
    expect(events.find((e) => e.event_type === 'approval.requested')?.data?.reviewer_policy).toEqual({
      rule: 'stripe.refund.*',
      roles: ['finance'],
      approvals_required: 2,
      policy_sha256: POLICY_SHA,
    });
  });

  it('brings a person who signs in from a deep link back to that request', async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`deep link: page error: ${e.message}`));
    const link = `${h.url}/#/approvals/${encodeURIComponent(refund.request_id)}`;
    await page.goto(link);
    await page.locator('#sso').waitFor({ state: 'visible' });
    await page.click('#sso');
    await page.locator('input[name="login"]').fill('carol');
    await page.locator('input[name="password"]').fill('any password');
    await page.click('button[type="submit"]');
    await page.locator('button:has-text("Continue")').click();
    await page.waitForURL(link);
    await waitFor('the linked request to open', async () =>
      (await page.locator('#d-id').innerText()) === refund.request_id ? true : undefined,
    );
    expect(await page.locator('#d-cannot').innerText()).toBe('This request is approved; it takes no more decisions.');
  });

  it('takes the ID token as a reviewer bearer token on the API, never as an agent', async () => {
    expect((await h.http('GET', `/v1/approvals/${refund.request_id}`, { key: aliceToken })).status).toBe(200);
    const asAgent = await h.create(evidence({ target }), { key: aliceToken });
    expect(asAgent.status).toBe(403);
    expect(asAgent.body.error.code).toBe('wrong_key_kind');
  });

  it('refuses a tampered token, and a token issued for another audience', async () => {
    const [head, body, sig] = aliceToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const forged = [head, Buffer.from(JSON.stringify({ ...claims, roles: ['admin'] })).toString('base64url'), sig].join(
      '.',
    );
    const r = await h.http('GET', '/v1/approvals', { key: forged });
    expect(r.status).toBe(401);
    expect(r.body.error.message).toMatch(/signature does not verify/);
    const other = new OidcVerifier({ ...settings, audience: 'some-other-service' });
    await expect(other.verify(aliceToken)).rejects.toMatchObject({
      status: 401,
      message: expect.stringMatching(/aud/),
    });
  });

  it('keeps reviewer API keys working for services that decide by machine', async () => {
    expect((await h.http('GET', '/v1/approvals', { key: h.keys.reviewer })).status).toBe(200);
  });

  it('ran without script errors on the page', () => {
    expect(problems).toEqual([]);
  });
});
