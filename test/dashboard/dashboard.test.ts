/**
 * The merchant dashboard (/dashboard) in a real browser (Debian's chromium driven by
 * playwright-core) against a real server: a member's sign-in (email and password; the
 * session is an HttpOnly cookie, nothing in storage), live payouts from the `events`
 * subscription, approve, cancel with a reason (shown in the details, the audit log and the
 * `payout_intent.cancelled` webhook), a cut socket that reconnects and catches up with
 * `after`, screenshots at 1280 and 390 px with an axe-core scan, and a session ended
 * elsewhere that signs the browser out. One browser for the file; the tests run in order on one page.
 *
 * Screenshots go to test-artifacts/dashboard/. Skips (with a printed reason) when chromium
 * is not installed; CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { chromium, Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, TestServer } from '../helpers/server';
import { Client, eventually, payoutBody, ref } from '../helpers/client';
import { startReceiver, Receiver } from '../helpers/receiver';
import { createRefund, postPromptPay, topupBody } from '../helpers/fixtures';
import { CHROMIUM, describeIf, haveChromium, NEEDS_CHROMIUM } from '../helpers/skip';
import { addMember, PASSWORD, type MemberClient } from '../helpers/members';

const describeBrowser = describeIf(haveChromium(), NEEDS_CHROMIUM);

const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/dashboard');
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
const CONNECTED = 'Updates: connected';
const REASON = 'Duplicate of an earlier payout: the recipient asked us to stop 🙏 (ส่งซ้ำ)';

describeBrowser('merchant dashboard in a browser', () => {
  let srv: TestServer;
  let merchant: Client;
  let owner: MemberClient;
  let receiver: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Server-side graphql-ws sockets, to cut them; while `blocked`, new upgrades are dropped. */
  const sockets = new Set<Duplex>();
  let blocked = false;
  const problems: string[] = [];
  let expectSocketErrors = false;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    srv = await startServer();
    merchant = await srv.merchant('Baan Coffee');
    owner = await addMember(srv, merchant.merchantId, 'owner@baan.example', 'owner');
    receiver = await startReceiver();
    const hook = await merchant.post('/v1/webhook_endpoints', { url: `${receiver.url}/hooks`, enabled_events: ['payout_intent.*'] });
    expect(hook.status).toBe(201);
    srv.server.server.prependListener('upgrade', (_req, socket: Duplex) => {
      if (blocked) {
        socket.destroy();
        return;
      }
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
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
    context = await browser.newContext({ viewport: DESKTOP, deviceScaleFactor: 1, locale: 'en-US', reducedMotion: 'reduce' });
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      const text = m.text();
      // The browser reports each refused reconnection while the test holds the socket down.
      if (expectSocketErrors && /WebSocket connection to .* failed/.test(text)) return;
      // Not signed in yet (the first look for a session), and an ended session: 401s the page expects.
      if (/status of 401/.test(text)) return;
      problems.push(`console: ${text}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(srv.url) && !r.url().startsWith(srv.url.replace('http', 'ws')) && !r.url().startsWith('data:'))
        problems.push(`outside request: ${r.url()}`);
    });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await receiver?.close();
    await srv?.close();
  });

  afterEach(() => {
    expect(problems).toEqual([]);
    problems.length = 0;
  });

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const row = (id: string) => page.getByTestId(`payout-${id}`);
  const statusOf = (id: string) => row(id).getAttribute('data-status');

  async function createPayout(amount = '125050'): Promise<string> {
    const res = await merchant.post('/v1/payout_intents', payoutBody({ amount, merchant_reference: ref('po') }));
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  test('serves the page with a strict CSP; sign in shows merchant, environment and the TEST MODE banner', async () => {
    const res = await page.goto(`${srv.url}/dashboard`);
    expect(res?.status()).toBe(200);
    const csp = res!.headers()['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`connect-src 'self' ws://${new URL(srv.url).host}`);
    expect(csp).not.toContain('unsafe-inline');

    // The member form: exactly these labels, and no key field anywhere.
    await page.getByLabel('Email', { exact: true }).waitFor();
    expect(await page.getByLabel('Authentication code', { exact: true }).count()).toBe(1);
    expect(await page.locator('input[placeholder^="pk_"], input[placeholder^="sk_"]').count()).toBe(0);
    // A wrong password is refused, and nothing is stored.
    await page.getByLabel('Email', { exact: true }).fill('owner@baan.example');
    await page.getByLabel('Password', { exact: true }).fill(`${PASSWORD}x`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('signin-error').waitFor();
    expect(await page.evaluate('[sessionStorage.length, localStorage.length, document.cookie]')).toEqual([0, 0, '']);
    expect(await context.cookies()).toEqual([]);

    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByTestId('merchant').textContent()).resolves.toBe('Baan Coffee');
    expect(await page.getByTestId('environment').textContent()).toBe('TEST');
    expect(await page.getByTestId('member').textContent()).toBe('owner@baan.example');
    expect(await page.getByTestId('test-banner').textContent()).toContain('TEST MODE');
    await page.getByText(CONNECTED, { exact: true }).waitFor();
    // The session is the HttpOnly cookie: no script sees it, nothing is in storage.
    expect(await page.evaluate('[sessionStorage.length, localStorage.length, document.cookie]')).toEqual([0, 0, '']);
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.secure, c.sameSite])).toEqual([['__Host-session', true, true, 'Strict']]);
    // A reload keeps the session.
    await page.reload();
    await page.getByText(CONNECTED, { exact: true }).waitFor();
    await shot('1-signed-in');
  });

  test('a payout created through REST appears live; approve one, cancel another with a reason', async () => {
    // Sign-in lands on the overview; the payouts are one click away.
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'Payouts', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Payouts' }).waitFor();
    await page.evaluate('window.marker = 42');
    ids.approve = await createPayout('125050');
    ids.cancel = await createPayout('9900');
    await row(ids.approve).waitFor();
    await row(ids.cancel).waitFor();
    expect(await statusOf(ids.approve)).toBe('REQUIRES_APPROVAL');
    expect(await row(ids.approve).locator('td.num').textContent()).toBe('1,250.50 THB');
    // No reload happened.
    expect(await page.evaluate('window.marker')).toBe(42);

    await row(ids.approve).getByRole('link').click();
    await page.getByTestId('approve').click();
    await eventually(async () => ['PROCESSING', 'SUCCEEDED'].includes((await statusOf(ids.approve)) ?? ''));
    expect(['processing', 'succeeded']).toContain((await merchant.get(`/v1/payout_intents/${ids.approve}`)).body.status);

    await row(ids.cancel).getByRole('link').click();
    await page.getByTestId('cancel').click();
    // The limit is counted in code points, as the server counts: 511 letters + 2 emoji = 513 (515 UTF-16 units).
    await page.getByTestId('reason').fill(`${'x'.repeat(511)}🙏🙏`);
    expect(await page.locator('#reason-count').textContent()).toContain('513 / 512');
    expect(await page.getByTestId('confirm-cancel').isDisabled()).toBe(true);
    await page.getByTestId('reason').fill(`${'x'.repeat(510)}🙏🙏`);
    expect(await page.locator('#reason-count').textContent()).toContain('512 / 512');
    expect(await page.getByTestId('confirm-cancel').isDisabled()).toBe(false);
    await page.getByTestId('reason').fill(REASON);
    await page.getByTestId('confirm-cancel').click();
    await expect(page.getByTestId('failure-message').textContent()).resolves.toBe(REASON);
    await eventually(async () => (await statusOf(ids.cancel)) === 'CANCELLED');
    expect(await page.getByTestId('payout-audit').textContent()).toContain(REASON);
    await shot('2-cancelled-details');
  });

  test('the reason is in the audit log and in the payout_intent.cancelled webhook', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByTestId('audit').waitFor();
    const reasons = await page.getByTestId('audit-reason').allTextContents();
    expect(reasons).toContain(REASON);
    // Filtered to the cancel operation: only the cancellation, with its reason.
    await page.getByLabel('Operation').fill('POST /v1/payout_intents/:id/cancel');
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually(async () => (await page.getByTestId('audit-reason').count()) === 1);
    expect(await page.getByTestId('audit-reason').textContent()).toBe(REASON);
    await shot('3-audit-log');

    const hook = await eventually(
      async () => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.type === 'payout_intent.cancelled' && b.data.object.id === ids.cancel),
      20000,
    );
    expect(hook.data.object.failure_message).toBe(REASON);

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByTestId('endpoints').getByRole('link').first().click();
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await page.getByTestId('attempts').locator('tbody tr').count()) > 0;
      },
      15000,
      500,
    );
  });

  test('a cut socket reconnects, catches up with `after` and shows what changed meanwhile', async () => {
    await page.getByRole('link', { name: 'Payouts' }).click();
    await page.getByTestId('payouts').waitFor();
    await page.getByText(CONNECTED, { exact: true }).waitFor();
    expectSocketErrors = true;
    blocked = true;
    expect(sockets.size).toBeGreaterThan(0);
    for (const s of sockets) s.destroy();
    await page.getByText('Connection lost, reconnecting…').waitFor();
    const missedA = await createPayout('50000');
    const missedB = await createPayout('70000');
    await merchant.post(`/v1/payout_intents/${missedB}/cancel`, { reason: 'while offline' });
    await new Promise((r) => setTimeout(r, 300));
    expect(await row(missedA).count()).toBe(0);
    blocked = false;
    await page.getByText(CONNECTED, { exact: true }).waitFor({ timeout: 15000 });
    const notice = page.getByTestId('missed');
    await notice.waitFor();
    await eventually(async () => {
      const text = (await notice.textContent()) ?? '';
      return text.includes(missedA) && text.includes(missedB) && text.includes('payout_intent.cancelled');
    });
    await row(missedA).waitFor();
    await eventually(async () => (await statusOf(missedB)) === 'CANCELLED');
    expectSocketErrors = false;
    await shot('4-reconnected');
  });

  test('payments, topups and refunds: lists, details and the test-mode helper actions', async () => {
    const detailStatus = () => page.getByTestId('details').getByTestId('status');
    const pay = await postPromptPay(merchant, '45000');
    expect(pay.status).toBe(201);
    await page.getByRole('link', { name: 'Payments' }).click();
    await page.getByTestId(`row-${pay.body.id}`).getByRole('link').click();
    await expect(detailStatus().textContent()).resolves.toBe('requires action');
    expect(await page.getByTestId('details').textContent()).toContain('450.00 THB');
    await page.getByRole('group', { name: 'Test mode helpers' }).getByRole('button', { name: 'succeed' }).click();
    await eventually(async () => (await detailStatus().textContent()) === 'succeeded');

    const refund = await createRefund(merchant, { payment_intent: pay.body.id, amount: '10000', reason: 'Damaged in transit' });
    await page.getByRole('link', { name: 'Refunds' }).click();
    await page.getByTestId(`row-${refund.id}`).getByRole('link').click();
    await eventually(async () => ((await page.getByTestId('details').textContent()) ?? '').includes('Damaged in transit'));

    const topup = await merchant.post('/v1/topup_intents', topupBody({ amount: '2500000' }), { idempotencyKey: randomUUID() });
    expect(topup.status).toBe(201);
    await page.getByRole('link', { name: 'Topups' }).click();
    await page.getByTestId(`row-${topup.body.id}`).getByRole('link').click();
    await expect(detailStatus().textContent()).resolves.toBe('requires action');
    await page.getByRole('group', { name: 'Test mode helpers' }).getByRole('button', { name: 'succeed' }).click();
    await eventually(async () => (await detailStatus().textContent()) === 'succeeded');
    expect((await merchant.get(`/v1/topup_intents/${topup.body.id}`)).body.status).toBe('succeeded');

    await page.getByRole('link', { name: 'Balances' }).click();
    await page.getByTestId('balances').waitFor();
    expect(await page.getByTestId('balances').textContent()).toContain('THB');
    // Movements are the ledger's signed rows: the topup in, the refund out (negative).
    const movements = page.getByTestId('movements');
    await eventually(async () => ((await movements.textContent()) ?? '').includes(topup.body.id));
    expect(await movements.locator('tr', { hasText: topup.body.id }).textContent()).toContain('25,000.00 THB');
    expect(await movements.locator('tr', { hasText: refund.id }).first().textContent()).toContain('-100.00 THB');
  });

  test('screenshots at 1280 and 390 px, and axe-core finds no serious or critical violation', async () => {
    const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    const scan = async (where: string) => {
      // Evaluated through the DevTools protocol, which the page's CSP does not govern.
      const result = await page.evaluate<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>(
        `${axeSource}; axe.run(document, { resultTypes: ['violations'] })`,
      );
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${where}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    };
    const violations: string[] = [];
    await page.goto(`${srv.url}/dashboard#/payouts/${ids.cancel}`);
    await page.getByTestId('failure-message').waitFor();
    await page.getByText(CONNECTED, { exact: true }).waitFor();
    // The reconnection notice of the previous test: dismissed by keyboard.
    if (await page.getByTestId('missed').count()) {
      await page.getByTestId('missed').getByRole('button', { name: 'Dismiss' }).press('Enter');
      await page.getByTestId('missed').waitFor({ state: 'detached' });
    }
    await shot('dashboard-1280');
    violations.push(...(await scan('payouts 1280')));
    for (const [name, probe] of [
      ['balances', 'balances'],
      ['payments', 'payments'],
      ['events', 'events'],
      ['audit', 'audit'],
      ['webhooks', 'endpoints'],
    ] as const) {
      await page.goto(`${srv.url}/dashboard#/${name}`);
      await page.getByTestId(probe).waitFor();
      violations.push(...(await scan(name)));
      await shot(`${name}-1280`);
    }
    await page.setViewportSize(PHONE);
    await page.goto(`${srv.url}/dashboard#/payouts/${ids.cancel}`);
    await page.getByTestId('failure-message').waitFor();
    const widths = await page.evaluate<{ scroll: number; inner: number }>('({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })');
    expect(widths.scroll).toBeLessThanOrEqual(widths.inner);
    await shot('dashboard-390');
    violations.push(...(await scan('payouts 390')));
    await page.setViewportSize(DESKTOP);
    expect(violations).toEqual([]);
    // Keyboard: the skip link is the first stop and moves focus to the content; rows open with Enter.
    await page.goto(`${srv.url}/dashboard#/payouts`);
    await row(ids.cancel).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('main');
    await row(ids.cancel).getByRole('link').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('failure-message').waitFor();
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('detail-title');
  });

  test('a session ended elsewhere signs the browser out with a message', async () => {
    await page.goto(`${srv.url}/dashboard#/payouts`);
    await page.getByText(CONNECTED, { exact: true }).waitFor();
    // Every session of the person ends (as a password change elsewhere or a removal would): the socket closes with 4403.
    await srv.app.sessions.endFor(owner.userId, null);
    await expect(page.getByTestId('signed-out-reason').textContent()).resolves.toContain('session ended');
    expect(await page.getByLabel('Email', { exact: true }).isVisible()).toBe(true);
    expect(await page.evaluate('[sessionStorage.length, localStorage.length]')).toEqual([0, 0]);
    await shot('5-session-ended');
  });
});
