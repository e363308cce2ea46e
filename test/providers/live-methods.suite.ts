/**
 * Which methods live mode can take (GraphQL `livePaymentMethods`): none before the operator
 * connects a live account, then what that account offers; asked from a test-mode session too;
 * owners, admins and full keys only; never a provider's name. Live payment links follow: refused
 * with no live account, taken once one is connected.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { FakeStripe } from '../helpers/fake-stripe';
import { startServer, TestServer } from '../helpers/server';
import type { Client } from '../helpers/client';

const QUERY = '{ livePaymentMethods { paymentMethod displayName live } }';

let srv: TestServer;
let stripe: FakeStripe;
let m: Client;

beforeAll(async () => {
  stripe = await FakeStripe.start();
  srv = await startServer({ env: { SIMULATED_PROVIDERS_IN_LIVE: '' } });
  m = await srv.merchant(undefined, 'test', { fund: false });
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await stripe?.close();
});

const liveOnes = (res: Awaited<ReturnType<Client['gql']>>) =>
  (res.body.data as { livePaymentMethods: { paymentMethod: string; live: boolean }[] }).livePaymentMethods.filter((x) => x.live).map((x) => x.paymentMethod);

test('none is live before a live account is connected; then what the account offers, named by method only', async () => {
  const before = await m.gql(QUERY);
  expect(before.body.errors).toBeUndefined();
  expect(before.body.data.livePaymentMethods.length).toBeGreaterThan(1);
  expect(liveOnes(before)).toEqual([]);
  const live = await srv.keyFor(m.merchantId, 'live');
  const link = { amount: '25000', currency: 'THB', country: 'TH', description: 'Yoga class' };
  const refused = await live.post('/v1/payment_links', link, { idempotencyKey: randomUUID() });
  expect([refused.status, refused.body.error?.code]).toEqual([422, 'no_provider_available']);

  await srv.app.providerAccounts.connect({
    provider: 'stripe',
    environment: 'live',
    secretKey: `sk_test_${randomBytes(16).toString('hex')}`,
    webhookSecret: `whsec_${randomBytes(16).toString('hex')}`,
    apiBase: stripe.url,
  });
  const after = await m.gql(QUERY);
  expect(after.body.errors).toBeUndefined();
  expect(liveOnes(after)).toEqual(['promptpay']);
  expect(after.text).not.toMatch(/stripe|pa_/i);
  const created = await live.post('/v1/payment_links', link, { idempotencyKey: randomUUID() });
  expect(created.status).toBe(201);
  const page = await fetch(created.body.url as string);
  expect(page.status).toBe(200);
  expect(await page.text()).not.toMatch(/stripe/i);
});

test('a key that may not create payments is refused the field, with the rest of the answer kept', async () => {
  const reader = await srv.keyFor(m.merchantId, 'test', ['payment_intents:read']);
  const res = await reader.gql(`{ livePaymentMethods { paymentMethod live } paymentMethodSettings { paymentMethod } }`);
  expect(res.body.data?.livePaymentMethods).toBeNull();
  expect(res.body.data?.paymentMethodSettings.length).toBeGreaterThan(1);
  expect(res.body.errors?.map((e: { path: string[]; extensions: { code: string } }) => [e.path, e.extensions.code.toLowerCase()])).toEqual([
    [['livePaymentMethods'], 'permission_denied'],
  ]);
});
