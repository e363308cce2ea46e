/**
 * People in the dashboard, in a real browser (chromium via playwright-core) against a real
 * server: the owner the CLI creates opens the printed setup URL, chooses a password, turns an
 * authenticator on (recovery codes shown once) and lands on the dashboard; signs out and in
 * with the labelled fields ("Email", "Password", "Authentication code"); invites a viewer from
 * the Team page, who sets up in a second browser context and sees payouts without any Approve
 * or Cancel; the owner's approve shows who approved and how many approvals are still missing;
 * removing the viewer signs their open tab out (their socket closes when the session ends);
 * axe-core finds no serious or critical violation on these pages (screenshots in
 * test-artifacts/dashboard/people-*.png).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { chromium, Browser, BrowserContext, Page } from 'playwright-core';
import { runCli, startServer, TestServer } from '../helpers/server';
import { Client, eventually, payoutBody } from '../helpers/client';
import { CHROMIUM, describeIf, haveChromium, NEEDS_CHROMIUM } from '../helpers/skip';
import { collectErrors } from '../helpers/browser';
import { approvalsModule } from '../../src/modules/approvals/approval.module';
import { totpCode } from '../../src/modules/people/credentials';
import { User } from '../../src/modules/people/people.entity';
import { Session } from '../../src/modules/people/session.entity';

const describeBrowser = describeIf(haveChromium(), NEEDS_CHROMIUM);
const OWNER = 'ada@tea.example';
const VIEWER = 'vic@tea.example';
const PASSWORD = 'a long enough passphrase';
const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/dashboard');
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page, and a screenshot (test-artifacts/dashboard/people-<name>.png). */
async function scan(page: Page, name: string): Promise<string[]> {
  await page.screenshot({ path: path.join(ARTIFACTS, `people-${name}.png`), fullPage: true });
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  const result = await page.evaluate<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>(
    `${AXE}; axe.run(document, { resultTypes: ['violations'] })`,
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${name}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describeBrowser('team members in the dashboard', () => {
  let srv: TestServer;
  let merchant: Client;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let owner: Page;
  let viewer: Page;
  let recoveryCodes: string[] = [];
  let payoutId: string;
  const problems: string[] = [];

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
    contexts.push(context);
    const page = await context.newPage();
    // 401s the page expects: the first look for a session, a refused sign-in, an ended session.
    collectErrors(page, problems);
    page.on('dialog', (d) => void d.accept());
    return page;
  }

  async function choosePassword(page: Page, url: string, name?: string): Promise<void> {
    await page.goto(url);
    if (name) {
      await page.getByTestId('setup').waitFor();
      problems.push(...(await scan(page, name)));
    }
    await page.getByLabel('Password', { exact: true }).fill('too short');
    await page.getByRole('button', { name: 'Set password' }).click();
    expect(await page.getByTestId('setup-error').textContent()).toContain('at least 12');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByTestId('setup-done').waitFor();
    // The used token leaves the address bar.
    expect(page.url()).not.toContain('setup=');
  }

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    srv = await startServer();
    merchant = await srv.merchant('Chiang Mai Tea');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    owner = await newPage();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await srv?.close();
  });

  afterEach(() => {
    expect(problems).toEqual([]);
    problems.length = 0;
  });

  test('the CLI prints a setup URL that opens the setup page: password, authenticator, recovery codes once, then the dashboard', async () => {
    const cli = await runCli(srv.database, ['users', 'create', '--merchant', merchant.merchantId, '--email', OWNER, '--role', 'owner'], {
      PUBLIC_BASE_URL: srv.url,
    });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    const printed = JSON.parse(cli.stdout) as { user_id: string; setup_url: string };
    expect(printed.user_id).toMatch(/^usr_/);
    expect(printed.setup_url.startsWith(`${srv.url}/dashboard/`)).toBe(true);

    await choosePassword(owner, printed.setup_url, 'setup');
    problems.push(...(await scan(owner, 'setup-authenticator')));
    await owner.getByTestId('totp-start').click();
    const secret = (await owner.getByTestId('totp-secret').textContent())!;
    problems.push(...(await scan(owner, 'setup-qr')));
    expect(await owner.getByTestId('totp-uri').textContent()).toMatch(/^otpauth:\/\/totp\//);
    expect(await owner.getByRole('img', { name: 'QR code of the authenticator secret' }).isVisible()).toBe(true);
    await owner.getByLabel('Authentication code').fill(totpCode(secret));
    await owner.getByRole('button', { name: 'Turn on' }).click();
    await owner.getByTestId('recovery-codes').waitFor();
    recoveryCodes = await owner.getByTestId('recovery-codes').locator('code').allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    // The codes download as a text file, one a line.
    const [download] = await Promise.all([owner.waitForEvent('download'), owner.getByTestId('download-recovery-codes').click()]);
    expect(download.suggestedFilename()).toBe('recovery-codes.txt');
    expect(fs.readFileSync(await download.path(), 'utf8')).toBe(`${recoveryCodes.join('\n')}\n`);
    problems.push(...(await scan(owner, 'recovery-codes')));
    await owner.getByTestId('totp-done').click();
    await expect(owner.getByTestId('member').textContent()).resolves.toBe(OWNER);
    expect(await owner.getByTestId('role').textContent()).toBe('owner');
    expect(await owner.getByTestId('merchant').textContent()).toBe('Chiang Mai Tea');
    await owner.getByText('Updates: connected', { exact: true }).waitFor();
    expect(await owner.evaluate('[sessionStorage.length, localStorage.length, document.cookie]')).toEqual([0, 0, '']);
  });

  test('sign out, then in with Email, Password and Authentication code (a recovery code; without a code it is refused)', async () => {
    await owner.getByTestId('signout').click();
    await owner.getByLabel('Email', { exact: true }).fill(OWNER);
    await owner.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await owner.getByRole('button', { name: 'Sign in' }).click();
    expect(await owner.getByTestId('signin-error').textContent()).toContain('authentication code');
    problems.push(...(await scan(owner, 'sign-in-refused')));
    await owner.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await owner.getByLabel('Authentication code', { exact: true }).fill(recoveryCodes[0]);
    await owner.getByRole('button', { name: 'Sign in' }).click();
    await expect(owner.getByTestId('member').textContent()).resolves.toBe(OWNER);
    // Owners see the Team page.
    expect(await owner.getByRole('link', { name: 'Team' }).count()).toBe(1);
  });

  test('an invited viewer sets up in another browser and sees no Approve; the owner approves one of two and both see who', async () => {
    const { approvalPolicies } = srv.app.modules.of(approvalsModule);
    const scope = { merchantId: merchant.merchantId, environment: 'test' as const };
    await srv.app.db.tx((tx) => approvalPolicies.set(tx, scope, { currency: 'THB', minAmount: 1n, approvals: 2, keysCount: false }));
    const created = await merchant.post('/v1/payout_intents', payoutBody({ amount: '150000' }), { idempotencyKey: randomUUID() });
    expect(created.status).toBe(201);
    payoutId = created.body.id;

    await owner.getByRole('link', { name: 'Team' }).click();
    await owner.getByTestId('invite-email').fill(VIEWER);
    await owner.getByTestId('invite-role').selectOption('VIEWER');
    await owner.getByRole('button', { name: 'Invite' }).click();
    const firstUrl = await owner.getByTestId('setup-url').inputValue();
    expect(firstUrl.startsWith(`${srv.url}/dashboard/#setup=`)).toBe(true);
    await owner.getByTestId(`member-${VIEWER}`).waitFor();
    problems.push(...(await scan(owner, 'team-invited')));
    // The link was lost: a new one replaces it (the first stops working).
    await owner.getByRole('button', { name: 'Done' }).click();
    await owner.getByTestId(`member-${VIEWER}`).getByTestId('new-setup-link').click();
    await eventually(
      async () =>
        (await owner
          .getByTestId('setup-url')
          .inputValue()
          .catch(() => firstUrl)) !== firstUrl || undefined,
    );
    const setupUrl = await owner.getByTestId('setup-url').inputValue();
    expect(setupUrl.startsWith(`${srv.url}/dashboard/#setup=`)).toBe(true);
    const stale = await srv.client().post('/dashboard/setup', { token: firstUrl.split('#setup=')[1], password: PASSWORD }, { headers: { origin: srv.url } });
    expect(stale.status).toBe(404);

    viewer = await newPage();
    await choosePassword(viewer, setupUrl);
    await viewer.getByTestId('totp-skip').click();
    await expect(viewer.getByTestId('role').textContent()).resolves.toBe('viewer');
    expect(await viewer.getByRole('link', { name: 'Team' }).count()).toBe(0);
    await viewer.goto(`${srv.url}/dashboard#/payouts/${payoutId}`);
    await viewer.getByTestId('approvals-missing').waitFor();
    expect(await viewer.getByTestId('approvals-missing').textContent()).toContain('Waiting for 2 more approvals');
    expect(await viewer.getByTestId('approve').count()).toBe(0);
    expect(await viewer.getByTestId('cancel').count()).toBe(0);
    problems.push(...(await scan(viewer, 'viewer-payout')));

    await owner.goto(`${srv.url}/dashboard#/payouts/${payoutId}`);
    await owner.getByTestId('approve').click();
    await eventually(async () => ((await owner.getByTestId('approvals').textContent()) ?? '').includes(`Approved by ${OWNER}`));
    expect(await owner.getByTestId('approvals-missing').textContent()).toContain('Waiting for 1 more approval');
    problems.push(...(await scan(owner, 'owner-voted')));
    // One vote per member: the button is gone for the owner now.
    expect(await owner.getByTestId('approve').count()).toBe(0);
    expect((await merchant.get(`/v1/payout_intents/${payoutId}`)).body.status).toBe('requires_approval');
  });

  test('removing the viewer signs their open tab out', async () => {
    await viewer.goto(`${srv.url}/dashboard#/payouts`);
    await viewer.getByText('Updates: connected', { exact: true }).waitFor();
    await owner.goto(`${srv.url}/dashboard#/team`);
    await owner
      .getByTestId(`member-${VIEWER}`)
      .getByRole('button', { name: /Remove/ })
      .click();
    await owner.getByTestId(`member-${VIEWER}`).waitFor({ state: 'detached' });
    await expect(viewer.getByTestId('signed-out-reason').textContent()).resolves.toContain('removed from the team');
    expect(await viewer.getByLabel('Email', { exact: true }).isVisible()).toBe(true);
  });

  test('a member of two merchants switches with the header; the environment badge follows the session', async () => {
    const second = await srv.app.auth.createMerchant('Lampang Tea');
    // Already has a password: no setup link, the merchant joins their switcher.
    expect((await srv.app.team.createUser(second.id, OWNER, 'admin')).setup_url).toBeNull();
    await owner.goto(`${srv.url}/dashboard#/payouts`);
    await owner.reload();
    const switcher = owner.getByTestId('merchant-switcher');
    await switcher.waitFor();
    expect(await switcher.locator('option').allTextContents()).toEqual(['Chiang Mai Tea', 'Lampang Tea']);
    await switcher.selectOption(second.id);
    await eventually(async () => (await owner.getByTestId('merchant').textContent()) === 'Lampang Tea');
    expect(await owner.getByTestId('role').textContent()).toBe('admin');
    await owner.getByText('Updates: connected', { exact: true }).waitFor();
    // This session signed in with a (recovery) code: live mode is allowed for an admin.
    await owner.getByTestId('switch-environment').click();
    await eventually(async () => (await owner.getByTestId('environment').textContent()) === 'LIVE');
    expect(await owner.getByTestId('test-banner').count()).toBe(0);
    expect(await owner.getByTestId('signed-out-reason').count()).toBe(0);
    problems.push(...(await scan(owner, 'live-switcher')));
  });

  test('in live mode Approve asks for an Authentication code: a wrong one is refused (still signed in), a right one approves', async () => {
    const lampang = (await srv.app.auth.findMerchant('Lampang Tea'))!;
    const liveKey = await srv.keyFor(lampang.id, 'live');
    await srv.fund(liveKey, 'THB', '10000000');
    const { approvalPolicies } = srv.app.modules.of(approvalsModule);
    await srv.app.db.tx((tx) =>
      approvalPolicies.set(tx, { merchantId: lampang.id, environment: 'live' }, { currency: 'THB', minAmount: 1n, approvals: 1, keysCount: false }),
    );
    const created = await liveKey.post('/v1/payout_intents', payoutBody({ amount: '30000' }), { idempotencyKey: randomUUID() });
    expect(created.status).toBe(201);
    // The code this session signed in with is older than 5 minutes now.
    const user = await srv.app.db.tx((tx) => tx.findOneByOrFail(User, { emailNormalized: OWNER }));
    await srv.app.db.tx((tx) => tx.update(Session, { userId: user.id }, { secondFactorAt: new Date(Date.now() - 6 * 60_000) }));

    await owner.goto(`${srv.url}/dashboard#/payouts/${created.body.id}`);
    await owner.getByTestId('approve').click();
    const code = owner.getByLabel('Authentication code', { exact: true });
    await code.fill('000000');
    await owner.getByRole('button', { name: 'Confirm and approve' }).click();
    await owner.getByTestId('step-up').getByRole('alert').waitFor();
    expect(await owner.getByTestId('signed-out-reason').count()).toBe(0);
    expect((await liveKey.get(`/v1/payout_intents/${created.body.id}`)).body.status).toBe('requires_approval');
    await code.fill(recoveryCodes[1]);
    await owner.getByRole('button', { name: 'Confirm and approve' }).click();
    await eventually(async () => (await liveKey.get(`/v1/payout_intents/${created.body.id}`)).body.status !== 'requires_approval');
    await eventually(async () => ((await owner.getByTestId('approvals').textContent()) ?? '').includes(`Approved by ${OWNER}`));
    expect(await owner.getByTestId('member').textContent()).toBe(OWNER);
  });

  test('the owner makes new recovery codes on the account page with a current code; the old ones stop working', async () => {
    await owner.goto(`${srv.url}/dashboard#/account`);
    await owner.locator('#recovery-code').fill(recoveryCodes[2]);
    await owner.getByRole('button', { name: 'Make new recovery codes' }).click();
    await owner.getByTestId('new-recovery-codes').locator('code').first().waitFor();
    const fresh = await owner.getByTestId('new-recovery-codes').locator('code').allTextContents();
    expect(fresh).toHaveLength(10);
    expect(fresh.some((c) => recoveryCodes.includes(c))).toBe(false);
    expect(await owner.getByTestId('download-recovery-codes').isVisible()).toBe(true);
    problems.push(...(await scan(owner, 'new-recovery-codes')));
    const old = await srv.client().post('/dashboard/sign-in', { email: OWNER, password: PASSWORD, code: recoveryCodes[3] }, { headers: { origin: srv.url } });
    expect(old.status).toBe(401);
  });
});
