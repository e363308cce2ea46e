/**
 * Settings and who-did-what in a real browser (chromium via playwright-core) against a real
 * server: an owner adds, changes and deletes an approval policy on the Settings page (the API
 * then says the same); a viewer reads the policies and the fee schedule but is offered no
 * control to change them; an owner sees which methods live mode can take; the audit page names who made each change and filters by them.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, TestServer } from '../helpers/server';
import { eventually, type Client } from '../helpers/client';
import { describeIf, haveChromium, NEEDS_CHROMIUM } from '../helpers/skip';
import { collectErrors, ownerPage, scan } from '../helpers/browser';
import { addMember, PASSWORD, signIn } from '../helpers/members';
import { balancesModule } from '../../src/modules/balances/balance.module';

const describeBrowser = describeIf(haveChromium(), NEEDS_CHROMIUM);
const OWNER = 'oda@settings.example';
const VIEWER = 'val@settings.example';

describeBrowser('settings and the audit log in the dashboard', () => {
  let srv: TestServer;
  let merchant: Client;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    srv = await startServer();
    merchant = await srv.merchant('Lampang Ceramics');
    ({ browser, context, page } = await ownerPage(srv, merchant.merchantId, OWNER, problems));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await srv?.close();
  });

  afterEach(() => {
    expect(problems).toEqual([]);
    problems.length = 0;
  });

  const policies = async () =>
    (await merchant.get('/v1/approval_policies')).body.data as { currency: string; min_amount: string; approvals: number; keys_count: boolean }[];

  test('an owner adds, changes and deletes an approval policy on the Settings page', async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByTestId('no-policies').waitFor();
    await page.getByLabel('Currency', { exact: true }).fill('THB');
    await page.getByLabel(/Minimum amount/).fill('100000');
    await page.getByLabel('Approvals needed').selectOption('2');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByTestId('policy-THB').waitFor();
    expect(await page.getByTestId('settings-done').textContent()).toContain('THB policy is saved');
    expect(await policies()).toMatchObject([{ currency: 'THB', min_amount: '100000', approvals: 2, keys_count: false }]);
    problems.push(...(await scan(page, 'settings')));

    await page.getByRole('button', { name: 'Change the THB policy' }).click();
    expect(await page.getByLabel('Currency', { exact: true }).inputValue()).toBe('THB');
    await page.getByLabel(/Minimum amount/).fill('250000');
    await page.getByLabel('Approvals needed').selectOption('3');
    await page.getByLabel(/API key.s approval counts/).check();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByTestId('policy-THB').getByText('250000').waitFor();
    expect(await policies()).toMatchObject([{ currency: 'THB', min_amount: '250000', approvals: 3, keys_count: true }]);

    await page.getByRole('button', { name: 'Delete the THB policy' }).click();
    await page.getByTestId('no-policies').waitFor();
    expect(await policies()).toEqual([]);
  });

  test('an owner sees which payment methods live mode can take (here the simulators, SIMULATED_PROVIDERS_IN_LIVE)', async () => {
    await page.getByTestId('live-methods').waitFor();
    expect(await page.getByTestId('live-promptpay').locator('td').allTextContents()).toEqual(['PromptPay QR', 'Live']);
    expect(await page.getByText('Live payments can use the methods marked Live.').isVisible()).toBe(true);
    expect(await page.getByTestId('live-methods').textContent()).not.toMatch(/siampay|stripe|opn/i);
  });

  test('a viewer reads the policies and the fee schedule, with no control to change them', async () => {
    await srv.app.modules
      .of(balancesModule)
      .fees.set(
        { merchantId: merchant.merchantId, environment: 'test' },
        { method: { name: 'promptpay', percentBps: 165, fixed: 0n }, payoutFixed: 1000n, taxBps: 700 },
      );
    await page.getByLabel('Currency', { exact: true }).fill('USD');
    await page.getByLabel(/Minimum amount/).fill('5000');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByTestId('policy-USD').waitFor();

    await addMember(srv, merchant.merchantId, VIEWER, 'viewer');
    const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', timezoneId: 'UTC' });
    try {
      const viewer = await viewerContext.newPage();
      collectErrors(viewer, problems);
      await viewer.goto(`${srv.url}/dashboard/#/settings`);
      await viewer.getByLabel('Email').fill(VIEWER);
      await viewer.getByLabel('Password').fill(PASSWORD);
      await viewer.getByRole('button', { name: 'Sign in' }).click();
      await viewer.getByTestId('policy-USD').waitFor();
      expect(await viewer.getByTestId('policies-owner-only').isVisible()).toBe(true);
      expect(await viewer.getByTestId('policy-form').count()).toBe(0);
      expect(await viewer.getByRole('button', { name: /Delete|Change|Save/ }).count()).toBe(0);
      const fees = await viewer.getByTestId('fees').textContent();
      expect(fees).toContain('promptpay');
      expect(fees).toContain('1.65%');
      expect(await viewer.getByTestId('fee-schedule').textContent()).toContain('7.00%');
      expect(await viewer.getByTestId('live-methods').count()).toBe(0);
      problems.push(...(await scan(viewer, 'settings-viewer')));
    } finally {
      await viewerContext.close();
    }
  });

  test('the audit page names who made each change (a member by email, a key by name) and filters by who', async () => {
    const key = await merchant.post('/v1/api_keys', { name: 'Checkout server' });
    expect(key.status).toBe(201);
    const named = srv.client(`${key.body.public_key}:${key.body.secret_key}`);
    expect((await named.post('/v1/webhook_endpoints', { url: 'https://example.com/hook', enabled_events: ['*'] })).status).toBe(201);
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    const rows = page.getByTestId('audit').locator('tbody tr');
    await rows.first().waitFor();
    const who = await page.getByTestId('audit-actor-cell').allTextContents();
    expect(who).toContain('API key Checkout server');
    expect(who).toContain(OWNER);
    expect(await page.getByTestId('audit').textContent()).toContain('POST /v1/approval_policies');
    problems.push(...(await scan(page, 'audit')));
    await page.getByTestId('audit-actor').selectOption({ label: OWNER });
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually(async () => !(await page.getByTestId('audit-actor-cell').allTextContents()).includes('API key Checkout server'));
    const mine = await page.getByTestId('audit-actor-cell').allTextContents();
    expect(mine.length).toBeGreaterThan(0);
    expect(new Set(mine)).toEqual(new Set([OWNER]));
  });

  test('a member changes their password with the current one; their other browser is signed out', async () => {
    const email = 'pat@settings.example';
    await addMember(srv, merchant.merchantId, email, 'finance');
    const contexts = await Promise.all([0, 1].map(() => browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US', timezoneId: 'UTC' })));
    try {
      const [here, there] = await Promise.all(contexts.map((c) => c.newPage()));
      for (const p of [here, there]) {
        collectErrors(p, problems);
        await p.goto(`${srv.url}/dashboard/#/account`);
        await p.getByLabel('Email').fill(email);
        await p.getByLabel('Password').fill(PASSWORD);
        await p.getByRole('button', { name: 'Sign in' }).click();
        await p.getByTestId('change-password').waitFor();
      }
      await here.getByLabel('Current password').fill('not the password at all');
      await here.getByLabel(/New password/).fill('a brand new passphrase');
      await here.getByRole('button', { name: 'Change password' }).click();
      await here.getByTestId('password-error').waitFor();
      await here.getByLabel('Current password').fill(PASSWORD);
      await here.getByLabel(/New password/).fill('a brand new passphrase');
      await here.getByRole('button', { name: 'Change password' }).click();
      await here.getByTestId('password-changed').waitFor();
      expect(await here.getByTestId('password-error').count()).toBe(0);
      problems.push(...(await scan(here, 'account-password')));
      // The other browser's session ended: its next request finds it signed out.
      await there.reload();
      await there.getByTestId('signin').waitFor();
      expect((await signIn(srv, email, 'a brand new passphrase')).status).toBe(200);
      expect((await signIn(srv, email, PASSWORD)).status).toBe(401);
      // Forgotten again: the owner issues a reset link from the Team page; it sets a new password.
      await page.goto(`${srv.url}/dashboard/#/team`);
      await page.getByTestId(`member-${email}`).getByTestId('reset-link').click();
      const resetUrl = await page.getByTestId('setup-url').inputValue();
      expect(await page.getByTestId('invitation').textContent()).toContain('password reset link');
      await there.goto(resetUrl);
      await there.getByLabel('Password', { exact: true }).fill('the third passphrase');
      await there.getByRole('button', { name: 'Set password' }).click();
      await there.getByTestId('setup-done').waitFor();
      expect((await signIn(srv, email, 'the third passphrase')).status).toBe(200);
    } finally {
      for (const c of contexts) await c.close();
    }
  });
});
