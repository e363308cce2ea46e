/**
 * A payment link in a real browser (Debian's chromium driven by playwright-core) at 320 px:
 * a fixed-amount link paid by PromptPay with the keyboard only, and a customer-chosen amount
 * paid by online banking (approved on the simulated bank's page), each from the link's page through the hosted checkout; axe-core
 * finds no serious or critical violation on the link's page, nothing is wider than the screen,
 * and the link counts the payment. Skips (with its reason) without chromium.
 */
import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/server';
import type { Client } from '../helpers/client';
import { CHROMIUM, describeIf, haveChromium, NEEDS_CHROMIUM } from '../helpers/skip';

const describeBrowser = describeIf(haveChromium(), NEEDS_CHROMIUM);
const NARROW = { viewport: { width: 320, height: 640 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1, locale: 'en-US' };

describeBrowser('a payment link in a browser (320 px)', () => {
  let srv: TestServer;
  let merchant: Client;
  let browser: Browser;
  let context: BrowserContext;
  const problems: string[] = [];

  beforeAll(async () => {
    srv = await startServer();
    merchant = await srv.merchant('Baan Coffee');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    context = await browser.newContext(NARROW);
    context.on('page', (page) => {
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      page.on('request', (r) => {
        const u = r.url();
        if (!u.startsWith(srv.url) && !u.startsWith('data:') && u !== 'about:blank') problems.push(`outside request: ${u}`);
      });
    });
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

  async function newLink(body: Record<string, unknown>): Promise<{ id: string; url: string }> {
    const res = await merchant.post('/v1/payment_links', { currency: 'THB', country: 'TH', description: 'Iced latte', ...body });
    expect(res.status).toBe(201);
    return res.body;
  }

  async function fitsTheScreen(page: Page): Promise<void> {
    const w = await page.evaluate<{ scroll: number; inner: number }>('({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })');
    expect(w.scroll).toBeLessThanOrEqual(w.inner);
  }

  async function axeViolations(page: Page): Promise<string[]> {
    const axe = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    // Evaluated through the DevTools protocol, which the page's CSP does not govern.
    const result = await page.evaluate<{ violations: { id: string; impact: string }[] }>(`${axe}; axe.run(document, { resultTypes: ['violations'] })`);
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
  }

  /** The payment the link created: the newest of the merchant's payment intents from it. */
  async function paymentOf(linkId: string): Promise<any> {
    const list = await merchant.get('/v1/payment_intents?limit=10');
    const found = list.body.data.find((p: any) => p.payment_link === linkId);
    expect(found).toBeDefined();
    return found;
  }

  test('fixed amount, keyboard only: PromptPay on the checkout, paid, the link counts it', async () => {
    const link = await newLink({ amount: '25000' });
    const page = await context.newPage();
    expect((await page.goto(link.url))?.status()).toBe(200);
    expect(await page.getByTestId('amount').textContent()).toBe('250.00 THB');
    expect(await page.getByTestId('description').textContent()).toBe('Iced latte');
    await fitsTheScreen(page);
    expect(await axeViolations(page)).toEqual([]);

    // Keyboard only: focus the PromptPay choice, select it, and submit the form with Enter.
    await page.getByTestId('option-promptpay').focus();
    await page.keyboard.press('Space');
    expect(await page.getByTestId('option-promptpay').isChecked()).toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname.startsWith('/checkout/'));
    await fitsTheScreen(page);
    if (await page.getByTestId('pay').count()) await page.getByTestId('pay').press('Enter');
    await page.getByTestId('qr').waitFor();

    const payment = await paymentOf(link.id);
    expect(payment).toMatchObject({ amount: '25000', payment_method: 'promptpay', payment_link: link.id });
    expect((await merchant.post(`/v1/test_helpers/payment_intents/${payment.id}/succeed`, {})).status).toBe(200);
    await page.getByTestId('succeeded').waitFor({ timeout: 15000 });
    expect((await merchant.get(`/v1/payment_links/${link.id}`)).body.completed_count).toBe(1);
    await page.close();
  });

  test('the payer chooses the amount: a value out of bounds is refused on the page, then online banking', async () => {
    const link = await newLink({ customer_chooses: { minimum: '10000', maximum: '50000' } });
    const page = await context.newPage();
    await page.goto(link.url);
    await fitsTheScreen(page);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByTestId('field-amount').fill('1000');
    const online = page.locator('[data-testid^="option-online_banking"]').first();
    await online.check();
    await page.getByTestId('continue').click();
    await page.getByTestId('error').waitFor();
    expect(page.url()).toContain('/pay/');

    await page.getByTestId('field-amount').fill('320.50');
    await page.locator('[data-testid^="option-online_banking"]').first().check();
    await page.getByTestId('continue').click();
    await page.waitForURL((u) => u.pathname.startsWith('/checkout/'));
    await fitsTheScreen(page);
    if (await page.getByTestId('pay').count()) await page.getByTestId('pay').click();
    // The simulated bank's page: the payer approves there and comes back to the checkout.
    await page.getByTestId('approve').waitFor();
    await fitsTheScreen(page);
    await page.getByTestId('approve').click();
    await page.locator('[data-testid="succeeded"], [data-testid="processing"]').first().waitFor({ timeout: 15000 });
    const payment = await paymentOf(link.id);
    expect(payment).toMatchObject({ amount: '32050', payment_method: 'online_banking', payment_link: link.id });
    expect(['processing', 'succeeded']).toContain(payment.status);
    await page.close();
  });
});
