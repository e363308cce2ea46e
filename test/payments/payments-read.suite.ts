/**
 * Payment intent reads: get scoping (unknown, foreign and other-environment
 * ids are the same 404), the listing rules and filters of GET /v1/payment_intents, and the
 * list items' processing_reason and receipt.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client } from '../helpers/client';
import { createPayment, directDebit, paymentBody } from '../helpers/fixtures';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const create = (c: Client, overrides: Record<string, unknown> = {}) => createPayment(c, paymentBody({ payment_method: 'promptpay', ...overrides }));

const DEBIT = directDebit;
const IDR = {
  amount: '5000000',
  currency: 'IDR',
  country: 'ID',
  customer: { name: 'Budi', phone: '+628123456789' },
  payment_method: 'bank_transfer',
  payment_method_options: { bank: 'BCA' },
};

describe('GET /v1/payment_intents/:id scoping', () => {
  test('unknown, foreign and other-environment ids give identical 404 not_found', async () => {
    const a = await srv.merchant(undefined, 'test', { fund: false });
    const b = await srv.merchant(undefined, 'test', { fund: false });
    const aLive = await srv.keyFor(a.merchantId, 'live');
    const own = await create(a);
    expect((await a.get(`/v1/payment_intents/${own.id}`)).body).toEqual(own);

    const foreign = await b.get(`/v1/payment_intents/${own.id}`);
    const otherEnv = await aLive.get(`/v1/payment_intents/${own.id}`);
    const unknown = await a.get(`/v1/payment_intents/pi_01jzzzzzzzzzzzzzzzzzzzzzzz`);
    const garbage = await a.get(`/v1/payment_intents/${encodeURIComponent('nope; drop table')}`);
    for (const r of [foreign, otherEnv, unknown, garbage]) {
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: { code: 'not_found', message: foreign.body.error.message } });
    }
    // the same for cancel and the test helpers: nothing changes
    for (const path of [
      `/v1/payment_intents/${own.id}/cancel`,
      `/v1/test_helpers/payment_intents/${own.id}/succeed`,
      `/v1/test_helpers/payment_intents/${own.id}/expire`,
    ]) {
      const r = await b.post(path, {});
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect((await aLive.post(`/v1/payment_intents/${own.id}/cancel`, {})).status).toBe(404);
    expect((await a.get(`/v1/payment_intents/${own.id}`)).body.status).toBe('requires_action');
    // an event id of the intent does not leak either
    expect((await b.get('/v1/events?limit=100')).body.data.filter((e: any) => e.data.object.id === own.id)).toEqual([]);
  });

  test('needs authentication', async () => {
    const res = await srv.client().get('/v1/payment_intents');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });
});

describe('GET /v1/payment_intents listing', () => {
  let c: Client;
  let live: Client;
  const made: any[] = [];
  let processing: any;
  let succeeded: any;
  let cancelled: any;
  let idr: any;

  beforeAll(async () => {
    c = await srv.merchant(undefined, 'test', { fund: false });
    live = await srv.keyFor(c.merchantId, 'live');
    const other = await srv.merchant(undefined, 'test', { fund: false });
    await create(other);
    await create(live);
    for (let i = 0; i < 5; i++) made.push(await create(c, { amount: String(10000 + i) }));
    processing = await create(c, DEBIT('0000000010'));
    succeeded = await create(c, DEBIT());
    cancelled = await create(c);
    cancelled = (await c.post(`/v1/payment_intents/${cancelled.id}/cancel`, {})).body;
    idr = await create(c, IDR);
    made.push(processing, succeeded, cancelled, idr);
  });

  const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((p) => p.id);

  test('most recent first, only this merchant and environment; list items equal the get records', async () => {
    const res = await c.get('/v1/payment_intents');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(ids(res)).toEqual(made.map((p) => p.id).reverse());
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
    for (const item of res.body.data) {
      expect(item).toEqual((await c.get(`/v1/payment_intents/${item.id}`)).body);
    }
    expect((await live.get('/v1/payment_intents')).body.data).toHaveLength(1);
  });

  test('processing_reason and receipt are present in every list item', async () => {
    const res = await c.get('/v1/payment_intents?limit=100');
    for (const item of res.body.data) {
      expect(item).toHaveProperty('processing_reason');
      expect(item).toHaveProperty('receipt');
    }
    const byId = new Map(res.body.data.map((p: any) => [p.id, p]));
    expect(byId.get(processing.id)).toMatchObject({ status: 'processing', processing_reason: 'risk_review', receipt: null });
    expect(byId.get(succeeded.id)).toMatchObject({ status: 'succeeded', processing_reason: null, receipt: succeeded.receipt });
    expect((byId.get(succeeded.id) as any).receipt.receipt_number).toMatch(/^RCPT-/);
    expect(byId.get(cancelled.id)).toMatchObject({ processing_reason: null, receipt: null });
  });

  test('pages follow next_cursor; filters are sent again with each page', async () => {
    const all = made.map((p) => p.id).reverse();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await c.get(`/v1/payment_intents?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      expect(res.body.has_more).toBe(res.body.next_cursor !== null);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(pages).toBe(3);

    const first = await c.get('/v1/payment_intents?limit=2&currency=THB');
    expect(first.body.has_more).toBe(true);
    const second = await c.get(`/v1/payment_intents?limit=2&currency=THB&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    const thb = made
      .filter((p) => p.currency === 'THB')
      .map((p) => p.id)
      .reverse();
    expect([...ids(first), ...ids(second)]).toEqual(thb.slice(0, 4));
  });

  test('filters: status (one and comma list), currency, country, merchant_reference, created range', async () => {
    expect(ids(await c.get('/v1/payment_intents?status=processing'))).toEqual([processing.id]);
    expect(ids(await c.get('/v1/payment_intents?status=succeeded,cancelled'))).toEqual([cancelled.id, succeeded.id]);
    expect(ids(await c.get('/v1/payment_intents?status=failed'))).toEqual([]);
    expect(ids(await c.get('/v1/payment_intents?currency=IDR'))).toEqual([idr.id]);
    expect(ids(await c.get('/v1/payment_intents?country=ID'))).toEqual([idr.id]);
    expect(ids(await c.get('/v1/payment_intents?country=TH&status=requires_action'))).toEqual(
      made
        .slice(0, 5)
        .map((p) => p.id)
        .reverse(),
    );
    expect(ids(await c.get(`/v1/payment_intents?merchant_reference=${encodeURIComponent(made[2].merchant_reference)}`))).toEqual([made[2].id]);
    const t = made[3].created_at;
    const gte = ids(await c.get(`/v1/payment_intents?created_gte=${encodeURIComponent(t)}&limit=100`));
    const lt = ids(await c.get(`/v1/payment_intents?created_lt=${encodeURIComponent(t)}&limit=100`));
    expect(gte).toContain(made[3].id);
    expect(lt).not.toContain(made[3].id);
    expect([...gte, ...lt].sort()).toEqual(made.map((p) => p.id).sort());
    const offset = t.replace('Z', '+00:00');
    expect(ids(await c.get(`/v1/payment_intents?created_gte=${encodeURIComponent(offset)}&limit=100`))).toEqual(gte);
  });

  test.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['status=done', 'status'],
    ['currency=thb', 'currency'],
    ['country=THA', 'country'],
    ['merchant_reference=', 'merchant_reference'],
    [`merchant_reference=${'r'.repeat(257)}`, 'merchant_reference'],
    ['created_gte=yesterday', 'created_gte'],
    ['created_lt=2026-01-01', 'created_lt'],
    ['cursor=garbage', 'cursor'],
    ['sort=asc', 'sort'],
  ])('%s -> 400 validation_error', async (query, param) => {
    const res = await c.get(`/v1/payment_intents?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param });
  });

  test('a cursor from another environment or resource is rejected', async () => {
    const page = await c.get('/v1/payment_intents?limit=1');
    const cursor = encodeURIComponent(page.body.next_cursor);
    expect((await live.get(`/v1/payment_intents?cursor=${cursor}`)).body.error).toMatchObject({
      code: 'validation_error',
      param: 'cursor',
    });
    expect((await c.get(`/v1/payout_intents?cursor=${cursor}`)).body.error).toMatchObject({ code: 'validation_error', param: 'cursor' });
  });

  test('limit defaults to 25', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    for (let i = 0; i < 26; i++) await create(m);
    const res = await m.get('/v1/payment_intents');
    expect(res.body.data).toHaveLength(25);
    expect(res.body.has_more).toBe(true);
  });

  test('GraphQL paymentIntents: connection with the same order, filters and fields', async () => {
    const q = `query($after: String, $filter: PaymentIntentFilter) { paymentIntents(first: 4, after: $after, filter: $filter) {
      edges { cursor node { id processingReason receipt { receiptNumber } } } pageInfo { hasNextPage endCursor } } }`;
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const res: any = await c.gql(q, { after });
      expect(res.body.errors).toBeUndefined();
      const conn = res.body.data.paymentIntents;
      seen.push(...conn.edges.map((e: any) => e.node.id));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(seen).toEqual(made.map((p) => p.id).reverse());
    const f = await c.gql(q, { filter: { currency: 'IDR', country: 'ID' } });
    expect(f.body.data.paymentIntents.edges.map((e: any) => e.node.id)).toEqual([idr.id]);
    const proc = await c.gql(q, { filter: { status: ['PROCESSING'] } });
    expect(proc.body.data.paymentIntents.edges[0].node).toEqual({ id: processing.id, processingReason: 'risk_review', receipt: null });
    const bad = await c.gql(q, { filter: { currency: 'thb' } });
    expect(bad.body.errors![0].extensions.code).toBe('validation_error');
  });
});
