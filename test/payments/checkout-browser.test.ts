/**
 * The hosted checkout page in a real browser (Debian's chromium driven by playwright-core),
 * on a phone-sized viewport: a PromptPay QR flow and a bank-transfer flow end to end
 * (method choice, payer fields with client- and server-side validation, instructions,
 * success, return to the merchant), plus the unknown-link and expired-link pages.
 *
 * A screenshot of every step goes to test-artifacts/checkout/. Skips (with a printed
 * reason) when chromium is not installed; CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { chromium, Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, TestServer } from '../helpers/server';
import type { Client } from '../helpers/client';

import { CHROMIUM, describeIf, haveChromium, NEEDS_CHROMIUM } from '../helpers/skip';

const describeBrowser = describeIf(haveChromium(), NEEDS_CHROMIUM);

const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/checkout');
const PHONE = { width: 390, height: 844 };
const PHONE_CONTEXT = {
  viewport: PHONE,
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 1,
  locale: 'en-US',
  timezoneId: 'Asia/Bangkok',
};

/** The merchant's site: records where the payer landed. */
interface ReturnSite {
  url: string;
  hits: URL[];
  close(): Promise<void>;
}

async function startReturnSite(): Promise<ReturnSite> {
  const hits: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/favicon.ico') hits.push(url);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title><h1 id="back">Back at the shop</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describeBrowser('hosted checkout in a browser (phone viewport)', () => {
  let srv: TestServer;
  let merchant: Client;
  let site: ReturnSite;
  let browser: Browser;
  let context: BrowserContext;
  /** Problems any page reported: console errors (CSP violations land here), page errors, requests leaving the machine. */
  const problems: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    srv = await startServer();
    merchant = await srv.merchant('Baan Coffee');
    site = await startReturnSite();
    // A default launch runs on a fresh temporary profile, removed on close.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    context = await browser.newContext(PHONE_CONTEXT);
    context.on('page', watch);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await site?.close();
    await srv?.close();
  });

  afterEach(() => {
    expect(problems).toEqual([]);
    problems.length = 0;
  });

  function watch(page: Page): void {
    page.on('console', (m) => {
      // 4xx answers are asserted where they are expected (and the browser's own /favicon.ico probe is a 404).
      if (m.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()))
        problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      const u = r.url();
      if (u.startsWith('data:') || u.startsWith(srv.url) || u.startsWith(site.url) || u === 'about:blank') return;
      problems.push(`outside request: ${u}`);
    });
  }

  async function newPage(): Promise<Page> {
    const page = await context.newPage();
    return page;
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  }

  async function hostedIntent(amount: string, reference = `order-${randomBytes(4).toString('hex')}`) {
    const res = await merchant.post('/v1/payment_intents', {
      amount,
      currency: 'THB',
      country: 'TH',
      checkout_mode: 'hosted',
      merchant_reference: reference,
      customer: { email: 'somchai@example.com' },
      return_url: `${site.url}/orders/${reference}?lang=en`,
    });
    expect(res.status).toBe(201);
    expect(res.body.next_action.type).toBe('redirect_to_url');
    return { id: res.body.id as string, url: res.body.next_action.url as string, reference };
  }

  /** Phone layout: viewport meta present and nothing wider than the screen. */
  async function expectPhoneLayout(page: Page): Promise<void> {
    expect(await page.getAttribute('meta[name=viewport]', 'content')).toContain('width=device-width');
    const widths = await page.evaluate<{ scroll: number; inner: number }>('({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })');
    expect(widths.scroll).toBeLessThanOrEqual(widths.inner);
  }

  async function succeedAndReturn(page: Page, intentId: string, reference: string, prefix: string): Promise<void> {
    const done = await merchant.post(`/v1/test_helpers/payment_intents/${intentId}/succeed`, {});
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('succeeded');
    // The waiting page polls and turns into the success page by itself.
    await page.getByTestId('succeeded').waitFor({ timeout: 15000 });
    await expect(page.getByRole('heading', { name: 'Payment received' }).isVisible()).resolves.toBe(true);
    await shot(page, `${prefix}-5-succeeded`);
    // ...then sends the payer back to the merchant's return_url.
    await page.waitForURL((u) => u.toString().startsWith(`${site.url}/orders/${reference}`), { timeout: 15000 });
    const landed = new URL(page.url());
    expect(landed.searchParams.get('lang')).toBe('en');
    expect(landed.searchParams.get('payment_intent')).toBe(intentId);
    expect(landed.searchParams.get('redirect_status')).toBe('succeeded');
    expect(await page.textContent('#back')).toBe('Back at the shop');
    expect(site.hits.some((h) => h.pathname === `/orders/${reference}`)).toBe(true);
    await shot(page, `${prefix}-6-returned`);
  }

  test('PromptPay: choose, scan the QR code, paid, back to the merchant', async () => {
    const intent = await hostedIntent('123450');
    const page = await newPage();
    const first = await page.goto(intent.url);
    expect(first?.status()).toBe(200);
    await expectPhoneLayout(page);
    expect(await page.getByTestId('merchant').textContent()).toBe('Baan Coffee');
    expect(await page.getByTestId('amount').textContent()).toBe('1,234.50 THB');
    expect(await page.getByRole('heading', { name: 'Choose how to pay' }).isVisible()).toBe(true);
    expect(await page.getByTestId('option-promptpay').count()).toBe(1);
    expect(await page.getByTestId('option-bank_transfer:KBANK').count()).toBe(1);
    await shot(page, 'qr-1-choose');

    await page.getByText('PromptPay QR').click();
    await page.getByTestId('continue').click();
    await page.getByTestId('pay').waitFor();
    await expectPhoneLayout(page);
    await shot(page, 'qr-2-details');
    await page.getByTestId('pay').click();

    const qr = page.getByTestId('qr');
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(await qr.evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await page.getByRole('status').textContent()).toContain('Waiting for your payment');
    await expectPhoneLayout(page);
    await shot(page, 'qr-3-scan');

    const rest = await merchant.get(`/v1/payment_intents/${intent.id}`);
    expect(rest.body.payment_method).toBe('promptpay');
    expect(rest.body.next_action.type).toBe('display_qr_code');
    await shot(page, 'qr-4-waiting');

    await succeedAndReturn(page, intent.id, intent.reference, 'qr');
    await page.close();
  });

  test('bank transfer: choose a bank, fix the payer fields, see the instructions, paid, back to the merchant', async () => {
    const intent = await hostedIntent('250000');
    const page = await newPage();
    await page.goto(intent.url);
    await page.getByText('Bank transfer - Kasikornbank').click();
    await page.getByTestId('continue').click();
    await page.getByRole('heading', { name: 'Bank transfer - Kasikornbank' }).waitFor();
    await expectPhoneLayout(page);
    await shot(page, 'transfer-1-details');

    // Empty fields: the browser check answers at once and nothing is posted.
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
    const detailsUrl = page.url();
    await page.getByTestId('pay').click();
    await expect(page.locator('#e-account_name').textContent()).resolves.toBe('Enter the account holder name.');
    expect(await page.locator('#e-account_number').textContent()).toBe('Enter your bank account number.');
    expect(await page.getByTestId('field-account_name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('f-account_name');
    expect(page.url()).toBe(detailsUrl);
    expect(posts).toEqual([]);
    await shot(page, 'transfer-2-empty-fields');

    // A malformed account number.
    await page.getByTestId('field-account_name').fill('Somchai Jaidee');
    await page.getByTestId('field-account_number').fill('12-ab');
    await page.getByTestId('pay').click();
    expect(await page.locator('#e-account_number').textContent()).toBe('Enter your account number: 6 to 20 digits.');
    expect(await page.locator('#e-account_name').count()).toBe(0);
    expect(posts).toEqual([]);
    await shot(page, 'transfer-3-invalid-account');

    // Nothing changed on the intent.
    const before = await merchant.get(`/v1/payment_intents/${intent.id}`);
    expect(before.body.payment_method).toBeNull();
    expect(before.body.next_action.type).toBe('redirect_to_url');

    await page.getByTestId('field-account_number').fill('123-456-7890');
    await page.getByTestId('pay').click();
    await page.getByTestId('transfer-section').waitFor();
    expect(posts).toHaveLength(1);
    expect(await page.getByTestId('transfer-bank').textContent()).toBe('Kasikornbank');
    expect(await page.getByTestId('transfer-account').textContent()).toMatch(/^[0-9-]{6,}$/);
    expect(await page.getByTestId('transfer-amount').textContent()).toBe('2,500.00 THB');
    const reference = await page.getByTestId('transfer-reference').textContent();
    expect(reference).toBeTruthy();
    await expectPhoneLayout(page);
    await shot(page, 'transfer-4-instructions');
    // A small phone: still one column, nothing cut off.
    await page.setViewportSize({ width: 320, height: 640 });
    await expectPhoneLayout(page);
    await shot(page, 'transfer-4-instructions-320px');
    await page.setViewportSize(PHONE);

    const rest = await merchant.get(`/v1/payment_intents/${intent.id}`);
    expect(rest.body.status).toBe('requires_action');
    expect(rest.body.payment_method).toBe('bank_transfer');
    expect(rest.body.next_action.type).toBe('display_bank_transfer_instructions');
    expect(rest.body.next_action.display_bank_transfer_instructions.reference).toBe(reference);

    await succeedAndReturn(page, intent.id, intent.reference, 'transfer');
    await page.close();
  });

  test('a Thai-script field: Latin letters are caught in the browser, the Thai name goes through', async () => {
    const intent = await hostedIntent('75000');
    const page = await newPage();
    await page.goto(intent.url);
    await page.getByText('Bank transfer - Krungthai Bank').click();
    await page.getByTestId('continue').click();
    await page.getByTestId('field-name_th').fill('Somchai Jaidee');
    await page.getByTestId('pay').click();
    expect(await page.locator('#e-name_th').textContent()).toBe('Enter your name in Thai script, for example สมชาย ใจดี.');
    await shot(page, 'thai-1-latin-rejected');
    await page.getByTestId('field-name_th').fill('สมชาย ใจดี');
    // The message goes away as soon as the field is valid.
    expect(await page.locator('#e-name_th').count()).toBe(0);
    await page.getByTestId('pay').click();
    await page.getByTestId('transfer-section').waitFor();
    expect(await page.getByTestId('transfer-bank').textContent()).toBe('Krungthai Bank');
    await shot(page, 'thai-2-instructions');
    await page.close();
  });

  test('without JavaScript the server checks the fields and says what is wrong', async () => {
    const intent = await hostedIntent('99000');
    const noJs = await browser.newContext({ ...PHONE_CONTEXT, javaScriptEnabled: false });
    const page = await noJs.newPage();
    watch(page);
    await page.goto(`${intent.url}?option=bank_transfer:KBANK`);
    await page.getByTestId('field-account_name').fill('Somchai Jaidee');
    await page.getByTestId('field-account_number').fill('');
    const [response] = await Promise.all([page.waitForNavigation(), page.getByTestId('pay').click()]);
    expect(response?.status()).toBe(400);
    expect(await page.locator('#e-account_number').textContent()).toBe('Enter your bank account number.');
    expect(await page.getByTestId('field-account_name').inputValue()).toBe('Somchai Jaidee');
    await shot(page, 'server-validation');
    const rest = await merchant.get(`/v1/payment_intents/${intent.id}`);
    expect(rest.body.payment_method).toBeNull();
    await noJs.close();
  });

  test('unknown link: a clear 404 page, no stack trace', async () => {
    const page = await newPage();
    const res = await page.goto(`${srv.url}/checkout/${randomBytes(32).toString('base64url')}`);
    expect(res?.status()).toBe(404);
    expect(await page.getByRole('heading').first().textContent()).toBe('Payment link not found');
    const text = await page.textContent('body');
    expect(text).not.toMatch(/Error:|at .*\.js:\d+|stack/i);
    await expectPhoneLayout(page);
    await shot(page, 'unknown-link');
    await page.close();
  });

  test('expired link: a clear 410 page that leads back to the merchant', async () => {
    const intent = await hostedIntent('50000');
    const expired = await merchant.post(`/v1/test_helpers/payment_intents/${intent.id}/expire`, {});
    expect(expired.status).toBe(200);
    expect(expired.body.status).toBe('expired');
    const page = await newPage();
    const res = await page.goto(intent.url);
    expect(res?.status()).toBe(410);
    expect(await page.getByRole('heading', { name: 'This payment link has expired' }).isVisible()).toBe(true);
    expect(await page.getByTestId('option-promptpay').count()).toBe(0);
    const back = new URL((await page.getByTestId('return').getAttribute('href')) ?? '');
    expect(back.pathname).toBe(`/orders/${intent.reference}`);
    expect(back.searchParams.get('redirect_status')).toBe('expired');
    await expectPhoneLayout(page);
    await shot(page, 'expired-link');
    await page.close();
  });
});
