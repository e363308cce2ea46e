/**
 * The finance pages in a real browser (chromium via playwright-core) against a real server and
 * database, signed in as an owner: the fee schedule the operator set with the CLI is shown on
 * the Balances page; a payment's details list its balance transactions; a report requested on
 * the Reports page turns succeeded without a reload and without any reportRun(s) query (it is
 * learned from the reportRun subscription, whose `after` is an event id), and its file parses;
 * Export CSV on the payments list with a currency filter downloads exactly the filtered rows.
 * Each page has no serious or critical axe-core violation and nothing overflows 390 px.
 */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { runCli, startServer, TestServer } from '../helpers/server';
import { Client } from '../helpers/client';
import { createPayment, paymentBody } from '../helpers/fixtures';
import { describeIf, haveChromium, NEEDS_CHROMIUM } from '../helpers/skip';
import { documentOf, ownerPage, scan } from '../helpers/browser';

const describeBrowser = describeIf(haveChromium(), NEEDS_CHROMIUM);
const OWNER = 'fin@finance.example';

/** The rows of a downloaded CSV file, as objects by header. */
async function csvOf(download: Download): Promise<Record<string, string>[]> {
  return parse<Record<string, string>>(fs.readFileSync(await download.path(), 'utf8'), { columns: true, bom: true });
}

describeBrowser('finance pages in the dashboard', () => {
  let srv: TestServer;
  let merchant: Client;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let thb: { id: string };
  let idr: { id: string };
  const problems: string[] = [];
  /** The GraphQL documents the page POSTed, in order. */
  const posted: string[] = [];
  /** The graphql-ws messages the page sent. */
  const frames: string[] = [];

  beforeAll(async () => {
    srv = await startServer();
    merchant = await srv.merchant('Mae Ping Tea');
    const fees = await runCli(srv.database, [
      ...['fees', 'set', '--merchant', merchant.merchantId, '--env', 'test', '--method', 'promptpay'],
      ...['--percent-bps', '165', '--fixed', '500', '--tax-bps', '700'],
    ]);
    expect(fees.code).toBe(0);
    await srv.app.fees.set({ merchantId: merchant.merchantId, environment: 'test' }, { payoutFixed: 2500n });
    thb = await createPayment(merchant, paymentBody({ payment_method: 'promptpay' }));
    expect((await merchant.post(`/v1/test_helpers/payment_intents/${thb.id}/succeed`, {})).body.status).toBe('succeeded');
    idr = await createPayment(merchant, {
      ...paymentBody({ amount: '5000000', currency: 'IDR', country: 'ID', payment_method: 'bank_transfer', payment_method_options: { bank: 'BCA' } }),
      customer: { name: 'Budi', phone: '+628123456789' },
    });

    ({ browser, context, page } = await ownerPage(srv, merchant.merchantId, OWNER, problems));
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/graphql') posted.push(documentOf(r.postData()));
    });
    page.on('websocket', (ws) => ws.on('framesent', (f) => frames.push(String(f.payload))));
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

  test('the Balances page shows the fee schedule the operator set', async () => {
    await page.getByRole('link', { name: 'Balances', exact: true }).click();
    const rates = page.getByTestId('fee-rates');
    await rates.waitFor();
    expect(await rates.locator('tbody tr').allInnerTexts()).toEqual(['promptpay\t1.65%\t5.00 THB']);
    const fees = (await page.getByTestId('fees').innerText()).replace(/\s+/g, ' ');
    expect(fees).toContain('Tax on fees 7%');
    expect(fees).toContain('Per payout 25.00 THB');
    problems.push(...(await scan(page, 'balances')));
  });

  test("a payment's details show its balance transactions: amount, fee, net", async () => {
    await page.goto(`${srv.url}/dashboard#/payments/${thb.id}`);
    const txns = page.getByTestId('payment-txns');
    await txns.waitFor();
    // 500.00 THB at 1.65% + 5.00: fee 13.25, VAT 0.93 (0.9275 rounded half-up): -14.18 THB.
    expect(await txns.locator('li').allInnerTexts()).toEqual([
      'payment: amount 500.00 THB, fee 0.00 THB, net 500.00 THB',
      // A fee row shows the fee as what it moved, not "fee 0.00".
      'payment fee: -14.18 THB',
    ]);
    problems.push(...(await scan(page, 'payment-detail')));
    await page.getByRole('link', { name: 'Balance transactions' }).click();
    await page.getByTestId('transactions').waitFor();
    problems.push(...(await scan(page, 'transactions')));
  });

  test('a report requested on the Reports page finishes live, without a reload or a poll, and its file parses', async () => {
    const listed = page.waitForResponse((r) => documentOf(r.request().postData()).includes('query ReportRuns'));
    await page.getByRole('link', { name: 'Reports' }).click();
    await (await listed).finished();
    await page.evaluate('window.notReloaded = true');
    const before = posted.length;
    const framesBefore = frames.length;
    await page.getByTestId('report-type').selectOption('BALANCE_SUMMARY');
    await page.getByTestId('run-report').click();
    const row = page.getByTestId('reports').locator('tbody tr').first();
    const link = row.getByTestId('download');
    await link.waitFor({ timeout: 20000 });
    expect(await row.getAttribute('data-status')).toBe('SUCCEEDED');
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    // One mutation and no query at all: the run was learned from the subscription, not polled.
    const sent = posted.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('mutation CreateReportRun');
    const subscribe = frames.slice(framesBefore).find((f) => f.includes('subscription ReportRunWatch'));
    expect(JSON.parse(subscribe!).payload.variables.after).toMatch(/^evt_/);
    problems.push(...(await scan(page, 'reports')));
    const [file] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const rows = await csvOf(file);
    expect(rows.map((r) => r.currency)).toEqual(['THB']);
    expect(Object.keys(rows[0])).toContain('closing_balance');
  });

  test('Export CSV on the payments list downloads the rows of its currency filter', async () => {
    await page.getByRole('link', { name: 'Payments' }).click();
    await page.getByTestId('payments').waitFor();
    await page.getByTestId('filter-from').fill('2020-01-01T00:00');
    await page.getByTestId('filter-to').fill('2099-01-01T00:00');
    await page.getByTestId('filter-currency').fill('idr');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByTestId(`row-${thb.id}`).waitFor({ state: 'detached' });
    expect(await page.getByTestId('payments').locator('tbody tr').count()).toBe(1);
    const before = posted.length;
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
    const rows = await csvOf(download);
    expect(rows.map((r) => [r.id, r.currency, r.amount])).toEqual([[idr.id, 'IDR', '5000000']]);
    expect(posted.slice(before).filter((p) => /reportRuns?\(/.test(p) && !p.includes('mutation'))).toEqual([]);
    expect(await page.getByTestId('export-state').textContent()).toBe('Downloaded 1 rows.');
    problems.push(...(await scan(page, 'payments-export')));
  });

  test('payouts and refunds offer the same export; without an interval it says what to choose and runs nothing', async () => {
    for (const [section, list] of [
      ['Payouts', 'payouts'],
      ['Refunds', 'refunds'],
    ]) {
      // The page's list query answered first: an "empty" still on screen from the previous page is not this one's.
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/graphql'),
        page.getByRole('link', { name: section, exact: true }).click(),
      ]);
      await page.locator(`[data-testid="${list}"], [data-testid="empty"]`).first().waitFor();
      expect(await page.getByTestId('export-csv').getAttribute('aria-describedby')).toBe('export-note');
      expect(await page.locator('#export-note').textContent()).toContain('status and reference filters are not applied');
      const before = posted.length;
      await page.getByTestId('export-csv').click();
      await page.getByTestId('export-state').getByText('Choose the interval to export (from and to), then Apply.', { exact: true }).waitFor();
      expect(posted.slice(before)).toEqual([]);
      problems.push(...(await scan(page, list)));
    }
  });
});
