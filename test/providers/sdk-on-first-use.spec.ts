/**
 * Stripe's SDK (about 220 modules) loads with the first Stripe account a process uses, not at
 * every start: a process that loads the whole service (what `npm start`, the CLI and every test
 * file load) has none of it. stripe-live.suite.ts shows the connector working once it is used.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const APP = path.resolve(__dirname, '../../src/app.js');

test("loading the service loads no module of Stripe's SDK", () => {
  const script = `require(${JSON.stringify(APP)});
const loaded = Object.keys(require.cache);
process.stdout.write(JSON.stringify({ modules: loaded.length, stripe: loaded.filter((f) => f.includes('/node_modules/stripe/')).length }));`;
  const { modules, stripe } = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { modules: number; stripe: number };
  expect(modules).toBeGreaterThan(1000);
  expect(stripe).toBe(0);
});
