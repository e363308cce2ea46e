/** Chromium page checks the dashboard's browser tests share: axe-core and a 390 px viewport, and the page's own errors. */
import fs from 'node:fs';
import type { Page } from 'playwright-core';

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Serious and critical axe-core violations, and a horizontal overflow at 390 px (the page is back at 1280 px after). */
export async function scan(page: Page, name: string): Promise<string[]> {
  const result = await page.evaluate<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>(
    `${AXE}; axe.run(document, { resultTypes: ['violations'] })`,
  );
  const found = result.violations
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
