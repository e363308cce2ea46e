/**
 * API keys and sessions in the dashboard, in chromium (playwright-core) against a real server:
 * a developer creates a restricted key (payment intents read, webhook endpoints write, payout
 * intents none: a developer may give no more than their role), sees its secret once, and the
 * secret works over REST where permitted and is refused with 403 naming the missing permission
 * elsewhere; the page then shows when it was last used; a roll shows the new secret once and
 * the old key expiring (still working in its overlap); a revoked key gets 401. A viewer has no
 * API keys page. Two browsers signed in as the same member: ending one from the other's
 * account page signs it out; ending the current session signs out here. Every page passes
 * axe-core (no serious or critical violation) and nothing overflows a 390 px viewport.
 */
import { chromium, Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, TestServer } from '../helpers/server';
import { Client, eventually } from '../helpers/client';
import { addMember, PASSWORD } from '../helpers/members';
import { CHROMIUM, describeIf, haveChromium, NEEDS_CHROMIUM } from '../helpers/skip';
import { collectErrors, scan } from '../helpers/browser';

const describeBrowser = describeIf(haveChromium(), NEEDS_CHROMIUM);
const DEVELOPER = 'dev@keys.example';
const VIEWER = 'vee@keys.example';
// Sessions are listed by browser and OS, read from these User-Agent strings.
const UA_A = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const UA_B = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.6; rv:128.0) Gecko/20100101 Firefox/128.0';
const UA_V = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

describeBrowser('API keys and sessions in the dashboard', () => {
  let srv: TestServer;
  let merchant: Client;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let dev: Page;
  /** The public key of the restricted key the developer created. */
  let created = '';
  const problems: string[] = [];

  /** A browser (its own cookies) whose User-Agent names it, signed in with the form. */
  async function signedIn(email: string, browserName: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', userAgent: browserName });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    contexts.push(context);
    const page = await context.newPage();
    collectErrors(page, problems);
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${srv.url}/dashboard/`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByTestId('member').textContent()).resolves.toBe(email);
    return page;
  }

  /** The secret the page shows once: [public key, secret key], then Done. */
  async function shownSecret(page: Page): Promise<[string, string]> {
    await page.getByTestId('new-secret').waitFor();
    // Focus moves to it (the form is further down the page).
    await eventually(async () => (await page.evaluate('document.activeElement.dataset.testid')) === 'new-secret');
    const pair: [string, string] = [await page.getByTestId('public-key').inputValue(), await page.getByTestId('secret-key').inputValue()];
    await page.getByTestId('copy-secret-key').click();
    await page.getByTestId('new-secret').getByText('Copied.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(pair[1]);
    problems.push(...(await scan(page, 'keys-secret')));
    await page.getByTestId('secret-done').click();
    expect(await page.getByTestId('new-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(pair[1]);
    return pair;
  }

  beforeAll(async () => {
    srv = await startServer();
    merchant = await srv.merchant('Keys and Co');
    await addMember(srv, merchant.merchantId, DEVELOPER, 'developer');
    await addMember(srv, merchant.merchantId, VIEWER, 'viewer');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    dev = await signedIn(DEVELOPER, UA_A);
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await srv?.close();
  });

  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  test('a developer creates a restricted key, sees its secret once, and it works over REST only where permitted', async () => {
    await dev.getByRole('link', { name: 'API keys' }).click();
    await dev.getByTestId('api-keys').waitFor();
    // A developer may not make a full key, nor give write where their role only reads.
    expect(await dev.getByLabel('Full access').count()).toBe(0);
    expect(await dev.getByTestId('grant-payment_intents').locator('option').allTextContents()).toEqual(['none', 'read']);
    await dev.getByTestId('grant-payment_intents').selectOption('read');
    await dev.getByTestId('grant-webhook_endpoints').selectOption('write');
    await dev.getByLabel('Name', { exact: true }).fill('Webhook relay');
    await dev.getByTestId('create-key-submit').click();
    expect(await dev.getByTestId('new-secret').textContent()).toContain('New key Webhook relay');
    const [pk, sk] = await shownSecret(dev);
    created = pk;
    expect(sk).toMatch(/^rk_test_/);
    const row = dev.getByTestId(`key-${pk}`);
    expect(await row.textContent()).toContain('restricted: payment_intents:read, webhook_endpoints:write');
    expect(await row.getByTestId('key-name').textContent()).toBe('Webhook relay');
    expect(await row.getByTestId('last-used').textContent()).toBe('never');
    // The merchant's full-access key is beyond a developer's role: no Roll or Revoke is offered on it.
    const fullKey = dev.getByTestId(`key-${merchant.auth!.split(':')[0]}`);
    expect(await fullKey.textContent()).toContain('full access');
    expect(await fullKey.getByRole('button').count()).toBe(0);
    expect(await row.getByRole('button', { name: /^Roll/ }).count()).toBe(1);

    const key = srv.client(`${pk}:${sk}`);
    expect((await key.get('/v1/payment_intents')).status).toBe(200);
    const refused = await key.get('/v1/payout_intents');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('permission_denied');
    expect(refused.body.error.message).toContain('payout_intents:read');

    await dev.getByRole('button', { name: 'Refresh' }).click();
    await eventually(async () => (await row.getByTestId('last-used').textContent()) !== 'never');
    expect(await row.getByTestId('last-used').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  });

  test('rolling shows the new secret once and the old key expiring; a revoked key gets 401', async () => {
    const oldPk = created;
    await dev.getByTestId(`key-${oldPk}`).getByRole('button', { name: /^Roll/ }).click();
    expect(await dev.getByTestId('overlap').locator('option').count()).toBe(8);
    await dev.getByTestId('overlap').selectOption('2');
    problems.push(...(await scan(dev, 'keys-roll')));
    await dev.getByRole('button', { name: 'Roll key' }).click();
    const [pk, sk] = await shownSecret(dev);
    expect(pk).not.toBe(oldPk);
    await eventually(async () => (await dev.getByTestId(`key-${oldPk}`).getAttribute('data-status')) === 'EXPIRING');
    expect(await dev.getByTestId(`key-${oldPk}`).textContent()).toMatch(/expires \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(await dev.getByTestId(`key-${pk}`).textContent()).toContain('restricted: payment_intents:read, webhook_endpoints:write');
    expect(await dev.getByTestId(`key-${pk}`).getByTestId('key-name').textContent()).toBe('Webhook relay');

    const key = srv.client(`${pk}:${sk}`);
    expect((await key.get('/v1/payment_intents')).status).toBe(200);
    await dev
      .getByTestId(`key-${pk}`)
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await eventually(async () => (await dev.getByTestId(`key-${pk}`).getAttribute('data-status')) === 'REVOKED');
    expect(await dev.getByTestId(`key-${pk}`).getByRole('button').count()).toBe(0);
    expect((await key.get('/v1/payment_intents')).status).toBe(401);
    problems.push(...(await scan(dev, 'keys-list')));
  });

  test('a viewer has no API keys page', async () => {
    const viewer = await signedIn(VIEWER, UA_V);
    expect(await viewer.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    await viewer.goto(`${srv.url}/dashboard/#/keys`);
    await viewer.getByRole('link', { name: 'Payouts', exact: true }).waitFor();
    expect(await viewer.getByTestId('create-key').count()).toBe(0);
    expect(await viewer.getByTestId('api-keys').count()).toBe(0);
  });

  test('ending a session from another browser signs it out; ending this one signs out here', async () => {
    await dev.goto(`${srv.url}/dashboard/#/payouts`);
    await dev.getByText('Updates: connected', { exact: true }).waitFor();
    const other = await signedIn(DEVELOPER, UA_B);
    await other.getByTestId('member').click();
    await other.getByTestId('sessions').waitFor();
    expect(await other.getByTestId('session-current').textContent()).toContain('Firefox 128 on macOS (this session)');
    problems.push(...(await scan(other, 'sessions')));
    await other.getByTestId('sessions').locator('tr', { hasText: 'Chrome 131 on Windows' }).getByRole('button', { name: /^End/ }).click();
    await other.getByTestId('sessions').locator('tr', { hasText: 'Chrome 131 on Windows' }).waitFor({ state: 'detached' });
    await expect(dev.getByTestId('signed-out-reason').textContent()).resolves.toContain('signed out elsewhere');
    expect(await dev.getByLabel('Email', { exact: true }).isVisible()).toBe(true);

    await other.getByTestId('session-current').getByRole('button', { name: /^End/ }).click();
    await other.getByLabel('Email', { exact: true }).waitFor();
    expect(await other.getByTestId('signed-out-reason').count()).toBe(0);
    await other.reload();
    await other.getByLabel('Email', { exact: true }).waitFor();
    expect(await other.getByTestId('member').count()).toBe(0);
  });
});
