/** Chromium page checks the dashboard's browser tests share: axe-core and a 390 px viewport, the page's own errors, and an owner signed in. */
import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestServer } from './server';
import { CHROMIUM } from './skip';

export const PASSWORD = 'a long enough passphrase';

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The dashboard's registered documents (the build's dist/persisted-documents.json), by id. */
export const REGISTERED = JSON.parse(fs.readFileSync(require.resolve('../../persisted-documents.json'), 'utf8')) as Record<string, string>;

/** The document a dashboard request ran: the registered text of its documentId (the dashboard never sends text). */
export function documentOf(postData: string | null): string {
  if (!postData) return '';
  const { documentId } = JSON.parse(postData) as { documentId?: string };
  return (documentId && REGISTERED[documentId]) ?? '';
}

type Violation = { id: string; impact: string; nodes: { target: string[] }[] };

/** axe-core's violations on the page as it stands. */
async function violations(page: Page): Promise<Violation[]> {
  const result = await page.evaluate<{ violations: Violation[] }>(`${AXE}; axe.run(document, { resultTypes: ['violations'] })`);
  return result.violations;
}

/** Every axe-core violation, whatever its impact. */
export async function axe(page: Page, name: string): Promise<string[]> {
  return (await violations(page)).map((v) => `${name}: ${v.impact} ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Serious and critical axe-core violations, and a horizontal overflow at 390 px (the page is back at 1280 px after). */
export async function scan(page: Page, name: string): Promise<string[]> {
  const found = (await violations(page))
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${name}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  await page.setViewportSize({ width: 390, height: 844 });
  const width = await page.evaluate<number>('document.documentElement.scrollWidth');
  if (width > 390) found.push(`${name}: ${width} px wide at a 390 px viewport`);
  await page.setViewportSize({ width: 1280, height: 860 });
  return found;
}

/** Adds the page's console errors and uncaught exceptions to `problems`; 401s are expected (the first look for a session, an ended one). */
export function collectErrors(page: Page, problems: string[]): void {
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
}

/**
 * Chromium at 1280 px (UTC, downloads on) with `email` created as an owner of `merchantId`, its
 * password set through the setup link, signed in; the page's errors go to `problems`. The owner
 * is made in the server's process by the call `cli users create` makes (a CLI run is a process
 * start of the whole service; team-browser.test.ts runs the CLI itself).
 */
export async function ownerPage(
  srv: TestServer,
  merchantId: string,
  email: string,
  problems: string[],
): Promise<{ browser: Browser; context: BrowserContext; page: Page }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', timezoneId: 'UTC', acceptDownloads: true });
  const page = await context.newPage();
  collectErrors(page, problems);
  const { setup_url } = await srv.app.team.createUser(merchantId, email, 'owner');
  expect(setup_url).toMatch(/#setup=/);
  await page.goto(setup_url as string);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByTestId('totp-skip').click();
  await expect(page.getByTestId('member').textContent()).resolves.toBe(email);
  return { browser, context, page };
}
