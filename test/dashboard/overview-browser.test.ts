/**
 * The overview in a real browser (chromium via playwright-core) against a real server and
 * database: signing in lands on it; it shows this month's gross volume, fees, refunds, net and
 * payouts per currency; its chart is an image (role="img") whose label sums it up, with a
 * table of the same figures as its text alternative; a payment that settles updates it live,
 * without a reload; another period can be chosen. At 1280x800 and 390x844 the document is no
 * wider than the viewport and axe-core finds no violation of any impact; screenshots go to
 * test-artifacts/dashboard/overview-<width>.png.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, TestServer } from '../helpers/server';
import { eventually, type Client } from '../helpers/client';
import { createPayout, createRefund, postPromptPay, succeededPayment } from '../helpers/fixtures';
import { describeIf, haveChromium, NEEDS_CHROMIUM } from '../helpers/skip';
import { axe, documentOf, ownerPage, PASSWORD } from '../helpers/browser';

const describeBrowser = describeIf(haveChromium(), NEEDS_CHROMIUM);
const OWNER = 'ovi@overview.example';
const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/dashboard');

describeBrowser('the overview the dashboard lands on', () => {
  let srv: TestServer;
  let merchant: Client;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const thb = () => page.getByTestId('overview-THB');
  const figure = async (name: string) => (await thb().getByTestId(name).textContent())?.trim();

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    srv = await startServer({ env: { SIMULATED_SETTLE_MS: '0' } });
    merchant = await srv.merchant('Chiang Mai Ceramics');
    const scope = { merchantId: merchant.merchantId, environment: 'test' as const };
    await srv.app.fees.set(scope, { taxBps: 700, payoutFixed: 2500n, method: { name: 'promptpay', percentBps: 165, fixed: 0n } });
    // 500.00 THB by PromptPay (fee 8.25 + VAT 0.58), 20.00 of it refunded, a payout of 100.00 (fee 25.00 + VAT 1.75).
    const pp = await postPromptPay(merchant, '50000');
    expect(pp.status).toBe(201);
    expect((await merchant.post(`/v1/test_helpers/payment_intents/${pp.body.id}/succeed`, {})).body.status).toBe('succeeded');
    await createRefund(merchant, { payment_intent: pp.body.id, amount: '2000' });
    await createPayout(merchant, { amount: '10000' });
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

  test('signing in lands on the overview: the month per currency at a glance', async () => {
    // A fresh browser signs in with the form and lands here.
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', timezoneId: 'UTC' });
    try {
      const p = await fresh.newPage();
      await p.goto(`${srv.url}/dashboard`);
      await p.getByLabel('Email', { exact: true }).fill(OWNER);
      await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      expect(await p.getByRole('link', { name: 'Overview', exact: true }).getAttribute('aria-current')).toBe('page');
      await p.getByTestId('overview-THB').waitFor();
    } finally {
      await fresh.close();
    }

    await page.goto(`${srv.url}/dashboard`);
    await thb().waitFor();
    expect(await page.getByTestId('period').inputValue()).toBe('THIS_MONTH');
    expect(await thb().locator('h2').textContent()).toBe('THB this month');
    expect(await figure('gross')).toBe('500.00 THB');
    expect(await figure('fees')).toBe('35.58 THB');
    expect(await figure('refunds')).toBe('20.00 THB');
    expect(await figure('net')).toBe('444.42 THB');
    expect(await figure('payouts')).toBe('100.00 THB');
  });

  test('the chart is an image with a summary, and its table has the same figures', async () => {
    const chart = thb().getByTestId('chart');
    expect(await chart.getAttribute('role')).toBe('img');
    const label = (await chart.getAttribute('aria-label')) ?? '';
    expect(label).toMatch(
      /^Chart of gross volume and net per day in THB, 1 \w+ to \d+ \w+: gross 500\.00 THB, net 444\.42 THB in total; busiest day \d+ \w+, 500\.00 THB gross\.$/,
    );
    // chart.js drew on the canvas, sized to its frame.
    expect(await chart.evaluate((c) => [(c as unknown as { width: number }).width > 0, (c as unknown as { height: number }).height > 0])).toEqual([true, true]);

    await thb().getByText('Figures by day, as a table').click();
    const rows = await thb().getByTestId('days').locator('tbody tr').allInnerTexts();
    const today = new Date();
    expect(rows).toHaveLength(today.getUTCDate());
    const todayLabel = today.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
    expect(rows[rows.length - 1]).toBe(`${todayLabel}\t500.00 THB\t35.58 THB\t20.00 THB\t444.42 THB\t100.00 THB`);
    for (const row of rows.slice(0, -1)) expect(row.split('\t').slice(1)).toEqual(Array(5).fill('0.00 THB'));
    // The label's busiest day is the table's.
    expect(label).toContain(`busiest day ${todayLabel},`);
  });

  test('a payment that settles updates the figures, the chart and the table live, without a reload', async () => {
    await page.evaluate('window.notReloaded = true');
    await succeededPayment(merchant, '5000'); // a direct debit of 50.00: settles at once, no fee
    await eventually(async () => (await figure('gross')) === '550.00 THB', 15000);
    expect(await figure('net')).toBe('494.42 THB');
    expect(await thb().getByTestId('chart').getAttribute('aria-label')).toContain('gross 550.00 THB, net 494.42 THB in total');
    const rows = await thb().getByTestId('days').locator('tbody tr').allInnerTexts();
    expect(rows[rows.length - 1]).toContain('\t550.00 THB\t35.58 THB\t20.00 THB\t494.42 THB\t100.00 THB');
    expect(await page.evaluate('window.notReloaded')).toBe(true);
  });

  test('another period: last month has nothing, last 7 days has the week', async () => {
    await page.getByTestId('period').selectOption('LAST_MONTH');
    await page.getByTestId('overview-empty').waitFor();
    expect(await page.getByTestId('overview-empty').textContent()).toContain('Nothing moved last month');
    await page.getByTestId('period').selectOption('LAST_7_DAYS');
    await thb().waitFor();
    expect(await thb().locator('h2').textContent()).toBe('THB last 7 days');
    expect(await figure('gross')).toBe('550.00 THB');
    await thb().getByText('Figures by day, as a table').click();
    expect(await thb().getByTestId('days').locator('tbody tr').count()).toBe(7);
    await page.getByTestId('period').selectOption('THIS_MONTH');
    await eventually(async () => (await thb().locator('h2').textContent()) === 'THB this month');
  });

  test("the batch preview shows each currency's payout fees under the schedule, and the total taken", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ov-')), 'batch.csv');
    fs.writeFileSync(
      file,
      [
        'amount,currency,country,merchant_reference,bank_code,account_number,holder_name',
        '150000,THB,TH,ov-batch-1,KBANK,1234567890,Somchai Jaidee',
        '20000,THB,TH,ov-batch-2,SCB,9876543210,Anong Dee',
        'x,THB,TH,ov-batch-3,BBL,1112223334,Anong Dee',
      ].join('\n'),
    );
    await page.getByRole('link', { name: 'Payout batches', exact: true }).click();
    await page.getByTestId('batch-file').setInputFiles(file);
    await page.getByTestId('csv-errors').waitFor();
    expect(await page.getByTestId('bad-row').count()).toBe(1);
    // 25.00 THB a payout and 7% tax on it: 26.75 THB; the two good rows: 53.50 THB of fees.
    await eventually(async () => ((await page.getByTestId('batch-totals').textContent()) ?? '').includes('fees'));
    expect((await page.getByTestId('batch-totals').textContent())?.replace(/\s+/g, ' ')).toBe(
      'THB: 2 payouts, total 1,700.00 THB, fees 53.50 THB (26.75 THB a payout, tax included), taken from available with the amounts: 1,753.50 THB',
    );

    // A create that fails shows its error; choosing a file again clears it (it said nothing about the new file).
    const good = file.replace(/batch\.csv$/, 'good.csv');
    fs.writeFileSync(good, fs.readFileSync(file, 'utf8').split('\n').slice(0, 3).join('\n'));
    await page.getByTestId('batch-file').setInputFiles(good);
    await page.getByTestId('batch-summary').filter({ hasText: 'good.csv: 2 rows, no errors found' }).waitFor();
    await page.route('**/graphql', (route) =>
      documentOf(route.request().postData()).includes('createPayoutBatch') ? route.fulfill({ status: 503, body: 'unavailable' }) : route.fallback(),
    );
    await page.getByTestId('create-batch').click();
    const alert = page.getByTestId('batch-create-error');
    await alert.waitFor();
    await page.unroute('**/graphql');
    problems.splice(0); // the browser logs the 503 it was made to get
    await page.getByTestId('batch-file').setInputFiles(file);
    await alert.waitFor({ state: 'detached' });
    await page.getByTestId('batch-summary').filter({ hasText: 'batch.csv: 3 rows' }).waitFor();
    expect((await merchant.get('/v1/payout_batches')).body.data).toHaveLength(0);
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
  });

  test('fits 1280x800 and 390x844 with no axe violation of any impact (screenshots)', async () => {
    for (const size of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(size);
      await thb().waitFor();
      const open = await thb()
        .locator('details')
        .evaluate((d) => (d as unknown as { open: boolean }).open);
      if (!open) await thb().getByText('Figures by day, as a table').click();
      // chart.js redraws on resize: let it settle.
      await page.waitForTimeout(300);
      const [scrollWidth, innerWidth] = await page.evaluate<[number, number]>('[document.documentElement.scrollWidth, innerWidth]');
      expect({ size: size.width, scrollWidth: scrollWidth <= innerWidth }).toEqual({ size: size.width, scrollWidth: true });
      await page.screenshot({ path: path.join(ARTIFACTS, `overview-${size.width}.png`), fullPage: true });
      problems.push(...(await axe(page, `overview@${size.width}`)));
    }
    await page.setViewportSize({ width: 1280, height: 860 });
  });
});
