/**
 * The merchant pages in a real browser (chromium via playwright-core) against a real server,
 * signed in as an owner the CLI created: a payment link is created and listed with its QR code
 * (the SVG route answers the session cookie); the create flow with the keyboard only (a fixed
 * amount) and at 390 px (the payer chooses; one method left out): its preview shows what was
 * typed and the methods the server offers, the QR code as the dashboard shows it decodes (jsQR)
 * to the link's URL, and that URL opens the payer's page with the same amount, description and
 * methods; a payout batch CSV with an invalid row shows its
 * errors and creates nothing, the fixed file creates the batch, which is approved and whose
 * items move on; a report run is created and its file downloaded; each page has no serious or
 * critical axe-core violation and nothing overflows a 390 px wide viewport.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, TestServer } from '../helpers/server';
import { Client, eventually } from '../helpers/client';
import { describeIf, haveChromium, NEEDS_CHROMIUM } from '../helpers/skip';
import { decodeQrSvg } from '../links/qr-decode';
import { ownerPage, PASSWORD, scan } from '../helpers/browser';

const describeBrowser = describeIf(haveChromium(), NEEDS_CHROMIUM);
const OWNER = 'pim@pages.example';
const VIEWER = 'vee@pages.example';
const HEADER = 'amount,currency,country,merchant_reference,bank_code,account_number,holder_name';

/**
 * The QR code as the page shows it: the <img> drawn into a canvas at 4 px per CSS pixel of its
 * box and read by the jsqr package, both in the page (evaluated through the DevTools protocol,
 * which the dashboard's CSP does not govern).
 */
const JSQR = fs.readFileSync(require.resolve('jsqr'), 'utf8');
function qrShown(page: Page): Promise<string | null> {
  return page.evaluate<string | null>(`${JSQR}; (() => {
    const img = document.querySelector('[data-testid="link-qr"]'), canvas = document.createElement('canvas');
    canvas.width = canvas.height = img.width * 4;
    const g = canvas.getContext('2d');
    g.imageSmoothingEnabled = false;
    g.drawImage(img, 0, 0, canvas.width, canvas.height);
    return self.jsQR(g.getImageData(0, 0, canvas.width, canvas.height).data, canvas.width, canvas.height)?.data ?? null; })()`);
}

/** The method names a page lists, in order. */
const names = (page: Page, selector: string): Promise<string[]> => page.locator(selector).allTextContents();

describeBrowser('merchant pages in the dashboard', () => {
  let srv: TestServer;
  let merchant: Client;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pages-'));

  beforeAll(async () => {
    srv = await startServer();
    merchant = await srv.merchant('Nan Weavers');
    ({ browser, context, page } = await ownerPage(srv, merchant.merchantId, OWNER, problems));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await srv?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(problems).toEqual([]);
    problems.length = 0;
  });

  test('create a payment link; it is listed with its QR code; deactivate it', async () => {
    await page.getByRole('link', { name: 'Payment links' }).click();
    await page.getByTestId('new-link').click();
    await page.getByTestId('link-amount').fill('250.50');
    await page.getByTestId('link-description').fill('Indigo scarf');
    problems.push(...(await scan(page, 'link-form')));
    await page.getByTestId('create-link').click();
    const row = page.getByTestId('links').locator('tr', { hasText: 'Indigo scarf' });
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('ACTIVE');
    expect(await row.textContent()).toContain('250.50 THB');
    const id = (await row.getAttribute('data-testid'))!.replace(/^link-/, '');
    const rest = await merchant.get(`/v1/payment_links/${id}`);
    expect(rest.body.amount).toBe('25050');
    expect(await page.getByTestId('link-url').inputValue()).toBe(rest.body.url);
    // The QR image loaded (an SVG with a size), fetched with the session cookie.
    await eventually(
      async () =>
        (await page.getByTestId('link-qr').evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth > 0)) || undefined,
    );
    problems.push(...(await scan(page, 'links')));
    await page.getByTestId('deactivate').click();
    await eventually(async () => (await row.getAttribute('data-status')) === 'INACTIVE');
    expect((await merchant.get(`/v1/payment_links/${id}`)).body.active).toBe(false);
  });

  test('create with the keyboard only: the preview shows what was typed; the QR code shown decodes to the URL, which opens the payer page', async () => {
    await page.goto(`${srv.url}/dashboard#/links`);
    await page.getByTestId('new-link').focus();
    await page.keyboard.press('Enter');
    // The form opens on its first field; Tab goes through the labelled fields in order.
    await eventually(async () => (await page.evaluate<string | null>('document.activeElement?.labels?.[0]?.textContent ?? null')) === 'Currency');
    for (const key of ['Tab', 'Tab', 'Tab']) await page.keyboard.press(key);
    await page.keyboard.type('1250.5');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Teak bowl');
    expect(await page.getByTestId('link-amount').inputValue()).toBe('1250.5');
    const preview = page.getByTestId('link-preview');
    await eventually(async () => (await preview.getByTestId('preview-amount').textContent()) === '1,250.50 THB');
    expect(await preview.getByTestId('preview-description').textContent()).toBe('Teak bowl');
    expect(await preview.textContent()).toContain('Pay Nan Weavers');
    // The methods are the server's discovery answer for the amount on a hosted page.
    const offered = await merchant.get('/v1/payment_method_options?currency=THB&country=TH&amount=125050&checkout_mode=hosted');
    const expected = (offered.body.data as { display_name: string }[]).map((o) => o.display_name);
    expect(expected.length).toBeGreaterThan(0);
    await eventually(async () => (await names(page, '.pay-options strong')).join('|') === expected.join('|'));
    problems.push(...(await scan(page, 'link-form-preview')));
    await page.keyboard.press('Enter');

    const url = await page.getByTestId('link-url').inputValue();
    const id = /#\/links\/(plink_\w+)/.exec(page.url())![1];
    const rest = await merchant.get(`/v1/payment_links/${id}`);
    expect(rest.body).toMatchObject({ url, amount: '125050', description: 'Teak bowl', allowed_methods: null });
    expect(await page.getByTestId(`link-${id}`).getByTestId('link-count').textContent()).toBe('0');
    await eventually(
      async () =>
        (await page.getByTestId('link-qr').evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth > 0)) || undefined,
    );
    expect(await qrShown(page)).toBe(url);
    const downloaded = page.waitForEvent('download');
    await page.getByTestId('download-qr').click();
    expect(decodeQrSvg(fs.readFileSync(await (await downloaded).path(), 'utf8'))).toBe(url);

    const payer = await context.newPage();
    try {
      expect((await payer.goto(url))?.status()).toBe(200);
      expect(await payer.getByTestId('amount').textContent()).toBe('1,250.50 THB');
      expect(await payer.getByTestId('description').textContent()).toBe('Teak bowl');
      expect(await names(payer, '.option strong')).toEqual(expected);
    } finally {
      await payer.close();
    }
  });

  test('at 390 px the payer chooses the amount and one method is left out: preview, create, QR, payer page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${srv.url}/dashboard#/links`);
      await page.getByTestId('new-link').click();
      await page.getByLabel('Customer chooses').check();
      await page.getByLabel('Minimum (THB)').fill('100');
      await page.getByLabel('Maximum (THB)').fill('500');
      await page.getByLabel('Description (shown to the payer)').fill('Weaving class');
      const preview = page.getByTestId('link-preview');
      await eventually(async () => (await preview.getByTestId('preview-bounds').textContent()) === 'Between 100.00 THB and 500.00 THB');
      expect(await preview.getByTestId('preview-description').textContent()).toBe('Weaving class');
      expect(await preview.getByTestId('preview-amount').count()).toBe(0);
      await page.getByTestId('method-bank_transfer').waitFor();
      const all = await names(page, '.pay-options strong');
      expect(all.some((n) => n.startsWith('Bank transfer'))).toBe(true);
      await page.getByTestId('method-bank_transfer').uncheck();
      await eventually(async () => (await preview.getByTestId('preview-bank_transfer').count()) === 0);
      const shown = await names(page, '.pay-options strong');
      expect(shown).toEqual(all.filter((n) => !n.startsWith('Bank transfer')));
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await page.getByTestId('create-link').click();

      const url = await page.getByTestId('link-url').inputValue();
      const id = /#\/links\/(plink_\w+)/.exec(page.url())![1];
      const rest = await merchant.get(`/v1/payment_links/${id}`);
      expect(rest.body).toMatchObject({ url, amount: null, customer_chooses: { minimum: '10000', maximum: '50000' }, description: 'Weaving class' });
      expect(rest.body.allowed_methods).not.toContain('bank_transfer');
      await page.getByTestId('link-qr').scrollIntoViewIfNeeded();
      await eventually(
        async () =>
          (await page.getByTestId('link-qr').evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth > 0)) || undefined,
      );
      expect(await qrShown(page)).toBe(url);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);

      const payer = await context.newPage();
      try {
        await payer.goto(url);
        expect(await payer.getByTestId('description').textContent()).toBe('Weaving class');
        expect(await payer.locator('#h-amount').textContent()).toBe('Between 100.00 THB and 500.00 THB');
        expect(await names(payer, '.option strong')).toEqual(shown);
      } finally {
        await payer.close();
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  test('a CSV with an invalid row shows its errors and creates nothing; the fixed file creates a batch that is approved', async () => {
    const rows = ['150000,THB,TH,batch-1,KBANK,1234567890,สมชาย ใจดี', '20000,THB,TH,batch-2,SCB,0987654321,Malee Sukjai'];
    const bad = path.join(dir, 'bad.csv');
    fs.writeFileSync(bad, [HEADER, ...rows, '-5,THB,TH,batch-3,BBL,1112223334,Anong Dee'].join('\n'));
    await page.getByRole('link', { name: 'Payout batches' }).click();
    const template = page.waitForEvent('download');
    await page.getByTestId('template').click();
    const lines = fs
      .readFileSync(await (await template).path(), 'utf8')
      .replace(/^\uFEFF/, '')
      .split('\r\n');
    expect(lines[0]).toBe(HEADER);
    expect(lines[1]).toContain('สมชาย ใจดี');
    await page.getByTestId('batch-file').setInputFiles(bad);
    await page.getByTestId('csv-errors').waitFor();
    expect(await page.getByTestId('csv-errors').textContent()).toContain('Row 3, amount');
    expect(await page.getByTestId('csv-rows').locator('tbody tr').count()).toBe(3);
    // Amounts in major units, the bad row marked, and the rows that pass totalled per currency.
    expect(await page.getByTestId('csv-rows').locator('tbody tr').first().textContent()).toContain('1,500.00 THB');
    expect(await page.getByTestId('bad-row').count()).toBe(1);
    expect(await page.getByTestId('bad-row').textContent()).toMatch(/^3Error/);
    expect(await page.getByTestId('batch-totals').textContent()).toBe('THB: 2 payouts, total 1,700.00 THB');
    expect(await page.getByTestId('create-batch').isDisabled()).toBe(true);
    problems.push(...(await scan(page, 'batch-errors')));
    expect((await merchant.get('/v1/payout_batches')).body.data).toHaveLength(0);

    // A row only the server can judge (an unknown currency): the batch is invalid, its errors shown, no payout made.
    const unknown = path.join(dir, 'unknown.csv');
    fs.writeFileSync(unknown, [HEADER, ...rows, '5000,ZZZ,TH,batch-3,BBL,1112223334,Anong Dee'].join('\n'));
    await page.getByTestId('batch-file').setInputFiles(unknown);
    await eventually(async () => ((await page.getByTestId('batch-summary').textContent()) ?? '').includes('no errors found'));
    await page.getByTestId('create-batch').click();
    await page.getByTestId('batch-errors').waitFor();
    expect(await page.getByTestId('batch-errors').textContent()).toContain('Row 3, currency');
    problems.push(...(await scan(page, 'batch-invalid')));
    expect((await merchant.get('/v1/payout_intents')).body.data).toHaveLength(0);

    const good = path.join(dir, 'good.csv');
    fs.writeFileSync(good, [HEADER, ...rows, '5000,THB,TH,batch-3,BBL,1112223334,Anong Dee'].join('\n'));
    await page.getByTestId('batch-file').setInputFiles(good);
    await eventually(async () => ((await page.getByTestId('batch-summary').textContent()) ?? '').includes('no errors found'));
    await page.getByTestId('create-batch').click();
    await page.getByTestId('approve-batch').waitFor();
    expect(await page.getByTestId('details').textContent()).toContain('1,750.00 THB');
    problems.push(...(await scan(page, 'batch-detail')));
    await page.getByTestId('approve-batch').click();
    const items = page.getByTestId('batch-items').locator('li');
    await eventually(async () => (await items.count()) === 3);
    for (const status of await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))) expect(['PROCESSING', 'SUCCEEDED']).toContain(status);
    expect(await page.getByTestId('approvals').textContent()).toContain(`Approved by ${OWNER}`);
  });

  test('balance transactions, and a report run downloaded from the Reports page and by Export CSV', async () => {
    await page.getByRole('link', { name: 'Balance transactions' }).click();
    await page.getByTestId('transactions').waitFor();
    problems.push(...(await scan(page, 'transactions')));
    const exported = page.waitForEvent('download');
    await page.getByTestId('export-csv').click();
    const file = await (await exported).path();
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toMatch(/^\uFEFF?\S+,/);

    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByTestId('report-type').selectOption('BALANCE_SUMMARY');
    await page.getByTestId('run-report').click();
    const link = page.getByTestId('reports').locator('tr[data-status="SUCCEEDED"]').first().getByTestId('download');
    await link.waitFor({ timeout: 20000 });
    problems.push(...(await scan(page, 'reports')));
    const downloaded = page.waitForEvent('download');
    await link.click();
    const csv = fs.readFileSync(await (await downloaded).path(), 'utf8');
    expect(csv).toContain('THB');
  });

  test('a viewer sees the pages without any action their role cannot take', async () => {
    const invited = await srv.app.team.createUser(merchant.merchantId, VIEWER, 'viewer');
    const other = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    try {
      const viewer = await other.newPage();
      await viewer.goto(invited.setup_url!);
      await viewer.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await viewer.getByRole('button', { name: 'Set password' }).click();
      await viewer.getByTestId('totp-skip').click();
      await expect(viewer.getByTestId('role').textContent()).resolves.toBe('viewer');
      await viewer.goto(`${srv.url}/dashboard#/links`);
      await viewer.getByTestId('links').waitFor();
      expect(await viewer.getByTestId('new-link').count()).toBe(0);
      await viewer.getByTestId('links').locator('a').first().click();
      await viewer.getByTestId('link-qr').waitFor();
      expect((await viewer.getByTestId('deactivate').count()) + (await viewer.getByTestId('activate').count())).toBe(0);
      await viewer.goto(`${srv.url}/dashboard#/batches`);
      await viewer.getByTestId('batches').waitFor();
      expect(await viewer.getByTestId('batch-upload').count()).toBe(0);
      await viewer.goto(`${srv.url}/dashboard#/transactions`);
      await viewer.getByTestId('transactions').waitFor();
      expect(await viewer.getByTestId('export-csv').count()).toBe(0);
      await viewer.goto(`${srv.url}/dashboard#/reports`);
      await viewer.getByTestId('reports').waitFor();
      expect(await viewer.getByTestId('report-form').count()).toBe(0);
      expect(await viewer.getByTestId('download').count()).toBeGreaterThan(0);
      expect(await viewer.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    } finally {
      await other.close();
    }
  });
});
