/**
 * The payer's path from a payment link: the page (the checkout's headers), a choice that
 * creates one hosted payment intent per visit (a repeat goes back to it), the intent's
 * payment_link, the completion count and event, 410 once deactivated, expired or
 * completed, the same 404 for a guessed token, and parallel payers at the limit.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import type { Client } from '../helpers/client';

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startServer();
  c = await srv.merchant(undefined, 'test', { fund: false });
});
afterAll(async () => {
  await srv?.close();
});

async function newLink(extra: Record<string, unknown> = {}) {
  const res = await c.post(
    '/v1/payment_links',
    { amount: '25000', currency: 'THB', country: 'TH', description: 'Yoga <class>', ...extra },
    { idempotencyKey: randomUUID() },
  );
  expect(res.status).toBe(201);
  return res.body;
}

const page = (url: string, init: RequestInit = {}) => fetch(url, { redirect: 'manual', ...init });
const visitOf = (html: string) => /name="visit" value="([^"]+)"/.exec(html)![1];
function submit(url: string, form: Record<string, string>) {
  return page(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
}

test('the page: amount, description (escaped), methods; the checkout headers', async () => {
  const link = await newLink();
  const res = await page(link.url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('cache-control')).toBe('no-store');
  const html = await res.text();
  expect(html).toContain('Yoga &lt;class&gt;');
  expect(html).toContain('250.00');
  expect(html).toContain('data-testid="option-promptpay"');
});

test('a guessed token and a malformed one get the same 404 page', async () => {
  const guessed = await page(`${srv.url}/pay/${randomBytes(32).toString('base64url')}`);
  const malformed = await page(`${srv.url}/pay/nope`);
  expect(guessed.status).toBe(404);
  expect(malformed.status).toBe(404);
  expect((await guessed.text()).replace(/nonce-[^'"]+|nonce="[^"]+"/g, '')).toBe((await malformed.text()).replace(/nonce-[^'"]+|nonce="[^"]+"/g, ''));
});

test('choosing a method creates one hosted intent per visit with payment_link, and continues on the checkout', async () => {
  const link = await newLink({ allowed_methods: ['promptpay'] });
  const html = await (await page(link.url)).text();
  expect(html).not.toContain('option-online_banking');
  const visit = visitOf(html);
  const first = await submit(link.url, { visit, option: 'promptpay' });
  expect(first.status).toBe(303);
  const location = first.headers.get('location')!;
  expect(location).toMatch(new RegExp(`^${srv.url}/checkout/[A-Za-z0-9_-]{43}\\?option=promptpay$`));
  const again = await submit(link.url, { visit, option: 'promptpay' });
  expect(again.headers.get('location')).toBe(location);
  const intents = (await c.get('/v1/payment_intents?limit=100')).body.data.filter((p: any) => p.payment_link === link.id);
  expect(intents).toHaveLength(1);
  expect(intents[0]).toMatchObject({ amount: '25000', checkout_mode: 'hosted', status: 'requires_action' });
  const gql = await c.gql(`query($id: ID!) { paymentIntent(id: $id) { paymentLinkId paymentLink { id completedCount amountMoney { minorUnits } } } }`, {
    id: intents[0].id,
  });
  expect(gql.body.data.paymentIntent).toEqual({
    paymentLinkId: link.id,
    paymentLink: { id: link.id, completedCount: 0, amountMoney: { minorUnits: '25000' } },
  });
  // The checkout offers only the link's methods.
  const checkout = await (await page(location.replace(/\?.*/, ''))).text();
  expect(checkout).toContain('option-promptpay');
  expect(checkout).not.toContain('option-online_banking');
});

test('a customer-chosen amount within the bounds; outside them the form again (400)', async () => {
  const link = await newLink({ amount: null, customer_chooses: { minimum: '10000', maximum: '50000' } });
  const visit = visitOf(await (await page(link.url)).text());
  const low = await submit(link.url, { visit, option: 'promptpay', amount: '99.99' });
  expect(low.status).toBe(400);
  expect(await low.text()).toContain('Enter an amount between 100.00 THB and 500.00 THB');
  const ok = await submit(link.url, { visit, option: 'promptpay', amount: '234.50' });
  expect(ok.status).toBe(303);
  const intent = (await c.get('/v1/payment_intents?limit=100')).body.data.find((p: any) => p.payment_link === link.id);
  expect(intent.amount).toBe('23450');
});

test('completions are counted; the limit closes the link (410) with payment_link.completed; deactivation and expiry are 410', async () => {
  const link = await newLink({ completion_limit: 1 });
  const go = await submit(link.url, { visit: visitOf(await (await page(link.url)).text()), option: 'promptpay' });
  expect(go.status).toBe(303);
  const busy = await submit(link.url, { visit: randomBytes(16).toString('base64url'), option: 'promptpay' });
  expect(busy.status).toBe(409);
  const intent = (await c.get('/v1/payment_intents?limit=100')).body.data.find((p: any) => p.payment_link === link.id);
  expect((await c.post(`/v1/test_helpers/payment_intents/${intent.id}/succeed`)).status).toBe(200);
  const after = (await c.get(`/v1/payment_links/${link.id}`)).body;
  expect(after.completed_count).toBe(1);
  expect((await page(link.url)).status).toBe(410);
  const events = (await c.get('/v1/events?type=payment_link.completed')).body.data.filter((e: any) => e.data.object.id === link.id);
  expect(events).toHaveLength(1);
  expect(events[0].data.object.completed_count).toBe(1);

  const off = await newLink();
  await c.post(`/v1/payment_links/${off.id}`, { active: false });
  expect((await page(off.url)).status).toBe(410);
  const soon = await newLink({ expires_at: new Date(Date.now() + 1500).toISOString() });
  expect((await page(soon.url)).status).toBe(200);
  await new Promise((r) => setTimeout(r, 1600));
  expect((await page(soon.url)).status).toBe(410);
});

test('parallel payers at the limit: only as many payments start as places remain, and the count never passes the limit', async () => {
  const link = await newLink({ completion_limit: 3 });
  const results = await Promise.all(Array.from({ length: 12 }, () => submit(link.url, { visit: randomBytes(16).toString('base64url'), option: 'promptpay' })));
  const started = results.filter((r) => r.status === 303);
  expect(started).toHaveLength(3);
  expect(results.filter((r) => r.status === 409)).toHaveLength(9);
  const intents = (await c.get('/v1/payment_intents?limit=100')).body.data.filter((p: any) => p.payment_link === link.id);
  expect(intents).toHaveLength(3);
  await Promise.all(intents.map((p: any) => c.post(`/v1/test_helpers/payment_intents/${p.id}/succeed`)));
  const after = (await c.get(`/v1/payment_links/${link.id}`)).body;
  expect(after.completed_count).toBe(3);
  expect((await page(link.url)).status).toBe(410);
  const completed = (await c.get('/v1/events?type=payment_link.completed')).body.data.filter((e: any) => e.data.object.id === link.id);
  expect(completed).toHaveLength(1);
});
