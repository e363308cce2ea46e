/**
 * Payment links, the merchant's side, on both surfaces: create (fixed and customer-chosen
 * amounts, the refusals), get, list (cursor), update and deactivate, the Idempotency-Key
 * rules, the events, and the QR code decoded back to the link's url.
 */
import { randomUUID } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import type { Client } from '../helpers/client';
import { decodeQrSvg } from './qr-decode';

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startServer();
  c = await srv.merchant(undefined, 'test', { fund: false });
});
afterAll(async () => {
  await srv?.close();
});

const fixed = (extra: Record<string, unknown> = {}) => ({ amount: '25000', currency: 'THB', country: 'TH', description: 'Yoga class', ...extra });

async function createLink(body: Record<string, unknown>, key = randomUUID()) {
  return c.post('/v1/payment_links', body, { idempotencyKey: key });
}

describe('REST', () => {
  test('create: a fixed amount, every contract field, a url with an unguessable token that names neither the id nor the merchant', async () => {
    const res = await createLink(fixed({ metadata: { order: 'A-1' }, return_url: 'https://shop.example/thanks' }));
    expect(res.status).toBe(201);
    const link = res.body;
    expect(Object.keys(link).sort()).toEqual(
      [
        'object',
        'id',
        'url',
        'active',
        'amount',
        'currency',
        'country',
        'description',
        'customer_chooses',
        'allowed_methods',
        'reusable',
        'completion_limit',
        'completed_count',
        'expires_at',
        'return_url',
        'metadata',
        'environment',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(link).toMatchObject({
      object: 'payment_link',
      active: true,
      amount: '25000',
      currency: 'THB',
      country: 'TH',
      description: 'Yoga class',
      customer_chooses: null,
      allowed_methods: null,
      reusable: true,
      completion_limit: null,
      completed_count: 0,
      expires_at: null,
      return_url: 'https://shop.example/thanks',
      metadata: { order: 'A-1' },
    });
    expect(link.id).toMatch(/^plink_[0-9a-z]{26}$/);
    const m = new RegExp(`^${srv.url}/pay/([A-Za-z0-9_-]{43})$`).exec(link.url);
    expect(m).not.toBeNull();
    const token = m![1];
    expect(Buffer.from(token, 'base64url').length).toBe(32);
    expect(token).not.toContain(link.id.slice(6));
    expect(token).not.toContain(c.merchantId.slice(4));
    expect((await c.get(`/v1/payment_links/${link.id}`)).body).toEqual(link);
  });

  test('customer_chooses, allowed_methods, single use', async () => {
    const res = await createLink({
      currency: 'thb',
      country: 'th',
      customer_chooses: { minimum: '10000', maximum: '500000' },
      allowed_methods: ['PromptPay', 'online_banking'],
      reusable: false,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      amount: null,
      currency: 'THB',
      country: 'TH',
      customer_chooses: { minimum: '10000', maximum: '500000' },
      allowed_methods: ['promptpay', 'online_banking'],
      reusable: false,
      completion_limit: 1,
    });
  });

  test.each([
    [{ currency: 'THB', country: 'TH' }, 'amount'],
    [fixed({ customer_chooses: { minimum: '1', maximum: '2' } }), 'amount'],
    [{ currency: 'THB', country: 'TH', customer_chooses: { minimum: '500', maximum: '100' } }, 'customer_chooses.maximum'],
    [fixed({ allowed_methods: ['cash'] }), 'allowed_methods'],
    [fixed({ reusable: false, completion_limit: 3 }), 'completion_limit'],
    [fixed({ completion_limit: 0 }), 'completion_limit'],
    [fixed({ expires_at: '2020-01-01T00:00:00Z' }), 'expires_at'],
    [fixed({ amount: '-5' }), 'amount'],
    [fixed({ colour: 'red' }), 'colour'],
  ])('refused: %j -> validation_error on %s', async (body, param) => {
    const res = await createLink(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param });
  });

  test('no allowed method for the payment: 422 payment_method_unavailable', async () => {
    const res = await createLink(fixed({ currency: 'USD', country: 'US' }));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('payment_method_unavailable');
  });

  test('Idempotency-Key: a repeat replays the first answer byte for byte; another body with it is 409', async () => {
    const key = randomUUID();
    const first = await createLink(fixed({ description: 'replayed' }), key);
    const again = await createLink(fixed({ description: 'replayed' }), key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await createLink(fixed({ description: 'different' }), key);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
  });

  test('update and deactivate; refusals; events created, updated, deactivated', async () => {
    const link = (await createLink(fixed({ completion_limit: 5 }))).body;
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const upd = await c.post(`/v1/payment_links/${link.id}`, { description: 'Evening class', completion_limit: 10, expires_at: later });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ description: 'Evening class', completion_limit: 10, expires_at: later, active: true });
    expect((await c.post(`/v1/payment_links/${link.id}`, { amount: '1' })).body.error).toMatchObject({ code: 'validation_error', param: 'amount' });
    const off = await c.post(`/v1/payment_links/${link.id}`, { active: false });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await c.get(`/v1/payment_links/${link.id}`)).body.active).toBe(false);
    const events = (await c.get('/v1/events?type=payment_link.*&limit=100')).body.data.filter((e: any) => e.data.object.id === link.id);
    expect(events.map((e: any) => e.type)).toEqual(['payment_link.deactivated', 'payment_link.updated', 'payment_link.updated', 'payment_link.created']);
    expect(events[0].data.object.active).toBe(false);
    const single = (await createLink(fixed({ reusable: false }))).body;
    expect((await c.post(`/v1/payment_links/${single.id}`, { completion_limit: 2 })).body.error).toMatchObject({ param: 'completion_limit' });
    expect((await c.post('/v1/payment_links/plink_nope', { active: false })).status).toBe(404);
  });

  test('list: newest first, cursor paging, scoped to the merchant and environment', async () => {
    const other = await srv.merchant(undefined, 'test', { fund: false });
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push((await other.post('/v1/payment_links', fixed({ description: `n${i}` }))).body.id);
    const first = await other.get('/v1/payment_links?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.map((l: any) => l.id)).toEqual([mine[2], mine[1]]);
    expect(first.body.has_more).toBe(true);
    const second = await other.get(`/v1/payment_links?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((l: any) => l.id)).toEqual([mine[0]]);
    expect(second.body.has_more).toBe(false);
    expect((await c.get(`/v1/payment_links/${mine[0]}`)).status).toBe(404);
    const live = await srv.keyFor(other.merchantId, 'live');
    expect((await live.get('/v1/payment_links')).body.data).toEqual([]);
  });

  test('qr.svg: an SVG QR code that decodes to the link url', async () => {
    const link = (await createLink(fixed())).body;
    const res = await c.get(`/v1/payment_links/${link.id}/qr.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.text.startsWith('<svg')).toBe(true);
    expect(decodeQrSvg(res.text)).toBe(link.url);
    expect((await c.get('/v1/payment_links/plink_01jf0000000000000000000000/qr.svg')).status).toBe(404);
  });
});

describe('GraphQL', () => {
  const FIELDS =
    'id url active amount currency country description customerChooses { minimum maximum } allowedMethods reusable completionLimit completedCount expiresAt returnUrl metadata createdAt updatedAt';

  test('createPaymentLink, paymentLink, paymentLinks, updatePaymentLink, deactivatePaymentLink', async () => {
    const created = await c.gql(
      `mutation($input: CreatePaymentLinkInput!) { createPaymentLink(input: $input) { ${FIELDS} } }`,
      {
        input: {
          currency: 'THB',
          country: 'TH',
          customerChooses: { minimum: '1000', maximum: '90000' },
          allowedMethods: ['promptpay'],
          metadata: { Key: 'v' },
        },
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(created.body.errors).toBeUndefined();
    const link = created.body.data.createPaymentLink;
    expect(link).toMatchObject({
      amount: null,
      customerChooses: { minimum: '1000', maximum: '90000' },
      allowedMethods: ['promptpay'],
      completedCount: 0,
      metadata: { Key: 'v' },
    });
    expect((await c.get(`/v1/payment_links/${link.id}`)).body.url).toBe(link.url);

    const read = await c.gql(
      `query($id: ID!) { paymentLink(id: $id) { id url amountMoney { minorUnits } } paymentLinks(first: 1) { nodes { id } pageInfo { hasNextPage } } node(id: $id) { ... on PaymentLink { id } } }`,
      {
        id: link.id,
      },
    );
    expect(read.body.data.paymentLink).toEqual({ id: link.id, url: link.url, amountMoney: null });
    expect(read.body.data.node).toEqual({ id: link.id });
    expect(read.body.data.paymentLinks.nodes).toEqual([{ id: link.id }]);

    const upd = await c.gql(
      `mutation($id: ID!) { updatePaymentLink(id: $id, input: { description: "Tips", completionLimit: 3 }) { description completionLimit active } }`,
      {
        id: link.id,
      },
    );
    expect(upd.body.data.updatePaymentLink).toEqual({ description: 'Tips', completionLimit: 3, active: true });
    const off = await c.gql(`mutation($id: ID!) { deactivatePaymentLink(id: $id) { active } }`, { id: link.id });
    expect(off.body.data.deactivatePaymentLink).toEqual({ active: false });

    const bad = await c.gql(
      `mutation { createPaymentLink(input: { amount: "100", currency: "THB", country: "TH", customerChooses: { minimum: "1", maximum: "2" } }) { id } }`,
    );
    expect(bad.body.data.createPaymentLink).toBeNull();
    expect(bad.body.errors![0].extensions.code).toBe('validation_error');
    const missing = await c.gql(`query { paymentLink(id: "plink_nope") { id } }`);
    expect(missing.body.data.paymentLink).toBeNull();
    expect(missing.body.errors![0].extensions.code).toBe('not_found');
  });
});
