/**
 * Every page of the dashboard fits and passes axe, in chromium against a real server: an owner
 * (who sees every section) opens each page at 1280x800 and at 390x844 with records on it (a
 * payment with a long reference, a payout, a key); on each the document is no wider than the
 * viewport (`scrollWidth <= innerWidth`), axe-core finds no violation of any impact, and a
 * screenshot is saved (test-artifacts/dashboard/layout-<page>-<width>.png). At 390 px the
 * sections fold behind a Menu button. A viewer who opens a section their role cannot is told so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, TestServer } from '../helpers/server';
import { payoutBody, type Client } from '../helpers/client';
import { describeIf, haveChromium, NEEDS_CHROMIUM } from '../helpers/skip';
import { axe, ownerPage } from '../helpers/browser';
import { addMember, PASSWORD } from '../helpers/members';

const describeBrowser = describeIf(haveChromium(), NEEDS_CHROMIUM);
const OWNER = 'olu@layout.example';
const VIEWER = 'vim@layout.example';
const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/dashboard');
const PAGES = [
  'overview',
  'payouts',
  'batches',
  'balances',
  'transactions',
  'reports',
  'payments',
  'links',
  'topups',
  'refunds',
  'events',
  'webhooks',
  'audit',
  'keys',
  'team',
  'settings',
  'account',
];
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

describeBrowser('every dashboard page fits at 1280 and 390 px and passes axe', () => {
  let srv: TestServer;
  let merchant: Client;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    srv = await startServer();
    merchant = await srv.merchant('Sukhothai Silk and Cotton Trading Company Limited');
    const payment = await merchant.post(
      '/v1/payment_intents',
      {
        amount: '125050',
        currency: 'THB',
        country: 'TH',
        checkout_mode: 'hosted',
        merchant_reference: `order-${'x'.repeat(60)}`,
        customer: { email: 'somchai@example.com' },
        return_url: 'https://shop.example/orders/1',
      },
      { idempotencyKey: randomUUID() },
    );
    expect(payment.status).toBe(201);
    const payout = await merchant.post('/v1/payout_intents', payoutBody({ amount: '150000' }), { idempotencyKey: randomUUID() });
    expect(payout.status).toBe(201);
    // The open records, long reference and all.
    PAGES.push(`payments/${payment.body.id}`, `payouts/${payout.body.id}`);
    ({ browser, context, page } = await ownerPage(srv, merchant.merchantId, OWNER, problems));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await srv?.close();
  });

  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  test('no page is wider than the viewport and none has an axe violation, at 1280x800 and 390x844', async () => {
    const figures: string[] = [];
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const name of PAGES) {
        await page.goto(`${srv.url}/dashboard/#/${name}`);
        await page.locator('main h1').first().waitFor();
        // Lists load after the heading: wait for their loading line to go.
        await page
          .getByText('Loading…')
          .first()
          .waitFor({ state: 'detached', timeout: 5000 })
          .catch(() => undefined);
        const [scrollWidth, innerWidth] = await page.evaluate<[number, number]>('[document.documentElement.scrollWidth, innerWidth]');
        figures.push(`${name}@${size.width}: ${scrollWidth}`);
        if (scrollWidth > innerWidth) problems.push(`${name} at ${size.width} px: ${scrollWidth} px wide`);
        await page.screenshot({
          path: path.join(ARTIFACTS, `layout-${name.split('/')[0]}${name.includes('/') ? '-open' : ''}-${size.width}.png`),
          fullPage: true,
        });
        problems.push(...(await axe(page, `${name}@${size.width}`)));
      }
    }
    process.stdout.write(`layout widths: ${figures.join(', ')}\n`);
    // At 390 px the sections are behind the Menu button, which opens them.
    expect(await page.getByRole('link', { name: 'Audit log', exact: true }).isVisible()).toBe(false);
    await page.getByTestId('menu').click();
    expect(await page.getByRole('link', { name: 'Audit log', exact: true }).isVisible()).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 240_000);

  test('a section the role cannot open says so', async () => {
    await addMember(srv, merchant.merchantId, VIEWER, 'viewer');
    const viewerContext = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US', timezoneId: 'UTC' });
    try {
      const viewer = await viewerContext.newPage();
      await viewer.goto(`${srv.url}/dashboard/#/team`);
      await viewer.getByLabel('Email').fill(VIEWER);
      await viewer.getByLabel('Password').fill(PASSWORD);
      await viewer.getByRole('button', { name: 'Sign in' }).click();
      await viewer.getByTestId('refused').waitFor();
      expect(await viewer.getByTestId('refused').textContent()).toContain('Your role (viewer) cannot open this page');
      expect(await viewer.locator('[aria-current="page"]').count()).toBe(0);
      problems.push(...(await axe(viewer, 'refused@390')));
    } finally {
      await viewerContext.close();
    }
  });
});
