/**
 * Refunds over REST and GraphQL (docs/contract.md "Additions" -> "Refunds"): create (full by
 * default, partial, several partial), get, list with the listing rules and the
 * `payment_intent` filter, `amount_refunded` on payment intents, the refusals
 * (invalid_state, refund_exceeds_payment, insufficient_balance, validation), the test
 * helpers, balances and the ledger, events, the audit log, Idempotency-Key and
 * merchant_reference dedup.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startServer, TestServer } from '../helpers/server';
import { Client, eventually, ref } from '../helpers/client';
import { startReceiver } from '../helpers/receiver';
import { amountRefunded, balanceOf, createPayment, createPayout, createRefund, paymentBody, postRefund, succeededPayment } from '../helpers/fixtures';

let srv: TestServer;
let c: Client;

beforeAll(async () => {
  srv = await startServer();
  c = await srv.merchant();
});
afterAll(async () => {
  await srv?.close();
});

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('create', () => {
  test('full by default: the whole amount, pending, with every contract field; the payment shows amount_refunded', async () => {
    const p = await succeededPayment(c, '5000');
    expect(p.amount_refunded).toBe('0');
    const res = await postRefund(c, { payment_intent: p.id });
    expect(res.status).toBe(201);
    const r = res.body;
    expect(Object.keys(r).sort()).toEqual([
      'amount',
      'created_at',
      'currency',
      'environment',
      'failure_code',
      'failure_message',
      'id',
      'merchant_reference',
      'object',
      'payment_intent',
      'reason',
      'status',
      'updated_at',
    ]);
    expect(r).toMatchObject({
      object: 'refund',
      payment_intent: p.id,
      amount: '5000',
      currency: 'THB',
      environment: 'test',
      status: 'pending',
      reason: null,
      merchant_reference: null,
      failure_code: null,
      failure_message: null,
    });
    expect(r.id).toMatch(/^re_[0-9a-z]{26}$/);
    expect(r.created_at).toMatch(ISO_MS);
    expect(r.updated_at).toBe(r.created_at);
    expect(await amountRefunded(c, p.id)).toBe('5000');
    // Nothing is left: another refund, with or without an amount, is refused.
    for (const body of [{ payment_intent: p.id }, { payment_intent: p.id, amount: '1' }]) {
      const again = await postRefund(c, body);
      expect(again.status).toBe(422);
      expect(again.body.error.code).toBe('refund_exceeds_payment');
    }
  });

  test('several partial refunds up to the amount; the default is what is still refundable', async () => {
    const p = await succeededPayment(c, '5000');
    const a = await createRefund(c, { payment_intent: p.id, amount: '1000', reason: 'one item returned' });
    expect(a).toMatchObject({ amount: '1000', reason: 'one item returned', status: 'pending' });
    const b = await createRefund(c, { payment_intent: p.id, amount: '0001500' });
    expect(b.amount).toBe('1500');
    expect(await amountRefunded(c, p.id)).toBe('2500');
    const over = await postRefund(c, { payment_intent: p.id, amount: '2501' });
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('refund_exceeds_payment');
    expect(over.body.error.message).toContain('2500');
    const rest = await createRefund(c, { payment_intent: p.id });
    expect(rest.amount).toBe('2500');
    expect(await amountRefunded(c, p.id)).toBe('5000');
  });

  test('only a succeeded payment intent: every other state is 422 invalid_state, and nothing is written', async () => {
    const hosted = await createPayment(c, paymentBody({ checkout_mode: 'hosted' }));
    const cancelled = await createPayment(c, paymentBody({ checkout_mode: 'hosted' }));
    expect((await c.post(`/v1/payment_intents/${cancelled.id}/cancel`, {})).status).toBe(200);
    const failed = await createPayment(c, paymentBody({ checkout_mode: 'hosted' }));
    expect((await c.post(`/v1/test_helpers/payment_intents/${failed.id}/fail`, {})).status).toBe(200);
    const held = await createPayment(
      c,
      paymentBody({
        payment_method: 'direct_debit',
        amount: '5000',
        payment_method_options: { account_name: 'Somchai Jaidee', account_number: '0000000010', bank: 'KBANK', name_th: 'สมชาย ใจดี' },
      }),
    );
    expect(held.status).toBe('processing');
    const before = await balanceOf(c);
    for (const [p, status] of [
      [hosted, 'requires_action'],
      [cancelled, 'cancelled'],
      [failed, 'failed'],
      [held, 'processing'],
    ] as const) {
      const res = await postRefund(c, { payment_intent: p.id, amount: '100' });
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 422, code: 'invalid_state' });
      expect(res.body.error.message).toContain(status);
      expect(await amountRefunded(c, p.id)).toBe('0');
    }
    expect(await balanceOf(c)).toEqual(before);
    expect((await c.get(`/v1/refunds?payment_intent=${held.id}`)).body.data).toEqual([]);
  });

  test('an unknown, foreign or other-environment payment intent is 404 not_found', async () => {
    const other = await srv.merchant();
    const theirs = await succeededPayment(other);
    const live = await srv.merchant(undefined, 'live');
    for (const id of ['pi_00000000000000000000000000', theirs.id]) {
      const res = await postRefund(c, { payment_intent: id });
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 404, code: 'not_found' });
    }
    const res = await postRefund(live, { payment_intent: theirs.id });
    expect(res.status).toBe(404);
    expect(await amountRefunded(other, theirs.id)).toBe('0');
  });

  test('validation: fields, reason of at most 512 characters (code points), unknown fields', async () => {
    const p = await succeededPayment(c);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'payment_intent'],
      [{ payment_intent: '' }, 'payment_intent'],
      [{ payment_intent: p.id, amount: '0' }, 'amount'],
      [{ payment_intent: p.id, amount: '-5' }, 'amount'],
      [{ payment_intent: p.id, amount: 100 }, 'amount'],
      [{ payment_intent: p.id, reason: 'x'.repeat(513) }, 'reason'],
      [{ payment_intent: p.id, reason: '😀'.repeat(513) }, 'reason'],
      [{ payment_intent: p.id, merchant_reference: '' }, 'merchant_reference'],
      [{ payment_intent: p.id, currency: 'THB' }, 'currency'],
    ];
    for (const [body, param] of cases) {
      const res = await postRefund(c, body);
      expect({ body, status: res.status, code: res.body.error.code, param: res.body.error.param }).toEqual({
        body,
        status: 400,
        code: 'validation_error',
        param,
      });
    }
    // 512 characters are accepted, also when each is outside the BMP (two UTF-16 units); a blank reason is none.
    const emoji = await createRefund(c, { payment_intent: p.id, amount: '10', reason: '😀'.repeat(512) });
    expect([...emoji.reason]).toHaveLength(512);
    const thai = await createRefund(c, { payment_intent: p.id, amount: '10', reason: 'ก'.repeat(512) });
    expect(thai.reason).toBe('ก'.repeat(512));
    expect((await createRefund(c, { payment_intent: p.id, amount: '10', reason: '   ' })).reason).toBeNull();
    expect((await createRefund(c, { payment_intent: p.id, amount: null, reason: null, merchant_reference: null, environment: 'live' })).amount).toBe('4970');
  });

  test('the amount is held from available at creation; insufficient_balance refuses and writes nothing', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await succeededPayment(m, '5000');
    expect(await balanceOf(m)).toEqual({ available: '5000', pending: '0', reserved: '0' });
    await createPayout(m, { amount: '4000' });
    expect(await balanceOf(m)).toEqual({ available: '1000', pending: '0', reserved: '4000' });
    const refused = await postRefund(m, { payment_intent: p.id, amount: '1001' });
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 422, code: 'insufficient_balance' });
    expect(await amountRefunded(m, p.id)).toBe('0');
    expect((await m.get('/v1/refunds')).body.data).toEqual([]);
    await createRefund(m, { payment_intent: p.id, amount: '1000' });
    expect(await balanceOf(m)).toEqual({ available: '0', pending: '0', reserved: '5000' });
  });
});

describe('lifecycle with the test helpers', () => {
  test('succeed: reserved leaves the balance; fail: the amount goes back to available and becomes refundable again', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await succeededPayment(m, '5000');
    const a = await createRefund(m, { payment_intent: p.id, amount: '2000' });
    const b = await createRefund(m, { payment_intent: p.id, amount: '3000' });
    expect(await balanceOf(m)).toEqual({ available: '0', pending: '0', reserved: '5000' });

    const ok = await m.post(`/v1/test_helpers/refunds/${a.id}/succeed`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: a.id, status: 'succeeded', failure_code: null });
    expect(await balanceOf(m)).toEqual({ available: '0', pending: '0', reserved: '3000' });

    const ko = await m.post(`/v1/test_helpers/refunds/${b.id}/fail`, {});
    expect(ko.status).toBe(200);
    expect(ko.body).toMatchObject({
      id: b.id,
      status: 'failed',
      failure_code: 'refund_declined',
      failure_message: "The payer's bank declined the refund.",
    });
    expect(await balanceOf(m)).toEqual({ available: '3000', pending: '0', reserved: '0' });
    expect(await amountRefunded(m, p.id)).toBe('2000');

    // Settled refunds do not move again.
    for (const path of [`${a.id}/fail`, `${a.id}/succeed`, `${b.id}/fail`, `${b.id}/succeed`]) {
      const res = await m.post(`/v1/test_helpers/refunds/${path}`);
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 422, code: 'invalid_state' });
    }
    // The failed amount can be refunded again.
    const c2 = await createRefund(m, { payment_intent: p.id });
    expect(c2.amount).toBe('3000');
    const named = await m.post(`/v1/test_helpers/refunds/${c2.id}/fail`, { failure_code: 'account_closed' });
    expect(named.body).toMatchObject({ failure_code: 'account_closed', failure_message: 'Refund failed: account_closed.' });

    const entries: any[] = await srv.app.db.ds.query(
      'SELECT source_id, entry_type, bucket, amount FROM ledger_entries WHERE source_type = ? AND merchant_id = ? ORDER BY id',
      ['refund', m.merchantId],
    );
    const byRefund = (id: string) => entries.filter((e) => e.source_id === id).map((e) => `${e.entry_type} ${e.bucket} ${String(e.amount)}`);
    expect(byRefund(a.id)).toEqual(['refund_reserved available -2000', 'refund_reserved reserved 2000', 'refund_paid reserved -2000']);
    expect(byRefund(b.id)).toEqual([
      'refund_reserved available -3000',
      'refund_reserved reserved 3000',
      'refund_released reserved -3000',
      'refund_released available 3000',
    ]);
    expect(await srv.app.ledger.verify()).toMatchObject({ mismatches: [] });
  });

  test('test helpers are for test keys only: a live key gets 404', async () => {
    const live = await srv.merchant(undefined, 'live');
    const p = await succeededPayment(c);
    const r = await createRefund(c, { payment_intent: p.id, amount: '100' });
    for (const action of ['succeed', 'fail']) {
      expect((await live.post(`/v1/test_helpers/refunds/${r.id}/${action}`)).status).toBe(404);
    }
    expect((await c.post('/v1/test_helpers/refunds/re_00000000000000000000000000/succeed')).status).toBe(404);
  });

  test('events refund.created / succeeded / failed carry the refund as GET shows it; the audit log records the create with its reason', async () => {
    const m = await srv.merchant();
    const p = await succeededPayment(m);
    const a = await createRefund(m, { payment_intent: p.id, amount: '100', reason: 'damaged' });
    const b = await createRefund(m, { payment_intent: p.id, amount: '200' });
    const settledA = (await m.post(`/v1/test_helpers/refunds/${a.id}/succeed`)).body;
    const settledB = (await m.post(`/v1/test_helpers/refunds/${b.id}/fail`)).body;
    const events = (await m.get('/v1/events?type=refund.*&limit=100')).body.data.reverse();
    expect(events.map((e: any) => `${e.type} ${e.data.object.id}`)).toEqual([
      `refund.created ${a.id}`,
      `refund.created ${b.id}`,
      `refund.succeeded ${a.id}`,
      `refund.failed ${b.id}`,
    ]);
    expect(events[0].data.object).toEqual(a);
    expect(events[2].data.object).toEqual(settledA);
    expect(events[3].data.object).toEqual(settledB);
    expect(await m.get(`/v1/refunds/${b.id}`).then((r) => r.body)).toEqual(settledB);

    const audit = (await m.get(`/v1/audit_log?resource_id=${a.id}`)).body.data.reverse();
    expect(audit.map((e: any) => [e.operation, e.resource_type, e.status_code, e.reason])).toEqual([
      ['POST /v1/refunds', 'refund', 201, 'damaged'],
      ['POST /v1/test_helpers/refunds/:id/succeed', 'refund', 200, null],
    ]);
  });
});

test('webhooks: an endpoint subscribed to refund.* receives the refund events, signed', async () => {
  const rx = await startReceiver();
  try {
    const m = await srv.merchant();
    const ep = await m.post('/v1/webhook_endpoints', { url: `${rx.url}/hooks`, enabled_events: ['refund.*'] });
    expect(ep.status).toBe(201);
    const p = await succeededPayment(m);
    const r = await createRefund(m, { payment_intent: p.id, amount: '100' });
    await m.post(`/v1/test_helpers/refunds/${r.id}/fail`);
    const got = await eventually(async () => rx.received.length >= 2 && rx.received);
    const wh = new Webhook(ep.body.secret);
    const events = got.map((x) => wh.verify(x.body, x.headers as Record<string, string>) as any);
    expect(events.map((e) => `${e.type} ${e.data.object.id}`).sort()).toEqual([`refund.created ${r.id}`, `refund.failed ${r.id}`]);
  } finally {
    await rx.close();
  }
});

describe('dedup', () => {
  test('a repeated merchant_reference returns the original refund with 200, whatever the body', async () => {
    const p = await succeededPayment(c);
    const reference = ref('re');
    const first = await postRefund(c, { payment_intent: p.id, amount: '100', merchant_reference: reference });
    expect(first.status).toBe(201);
    expect(first.body.merchant_reference).toBe(reference);
    const again = await postRefund(c, { payment_intent: p.id, amount: '999', merchant_reference: reference });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await amountRefunded(c, p.id)).toBe('100');
    // Exact match: another case is another reference.
    expect((await postRefund(c, { payment_intent: p.id, amount: '100', merchant_reference: reference.toUpperCase() })).status).toBe(201);
    // Concurrent repeats: one refund.
    const racing = ref('re');
    const results = await Promise.all(Array.from({ length: 8 }, () => postRefund(c, { payment_intent: p.id, amount: '10', merchant_reference: racing })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await amountRefunded(c, p.id)).toBe('210');
  });

  test('Idempotency-Key: the same key and body replays byte for byte; another body is 409; across REST and GraphQL', async () => {
    const p = await succeededPayment(c);
    const key = randomUUID();
    const first = await postRefund(c, { payment_intent: p.id, amount: '100' }, key);
    expect(first.status).toBe(201);
    const replay = await postRefund(c, { payment_intent: p.id, amount: '00100' }, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    const conflict = await postRefund(c, { payment_intent: p.id, amount: '101' }, key);
    expect({ status: conflict.status, code: conflict.body.error.code }).toEqual({ status: 409, code: 'idempotency_conflict' });
    const gql = await c.gql(
      'mutation($input: CreateRefundInput!) { createRefund(input: $input) { id amount } }',
      { input: { paymentIntent: p.id, amount: '100' } },
      { 'idempotency-key': key },
    );
    expect(gql.headers.get('idempotent-replayed')).toBe('true');
    expect(gql.body.data!.createRefund).toEqual({ id: first.body.id, amount: '100' });
    // A refused create is stored too: the retry gets the same refusal.
    const over = randomUUID();
    const refused = await postRefund(c, { payment_intent: p.id, amount: '999999' }, over);
    expect(refused.status).toBe(422);
    expect((await postRefund(c, { payment_intent: p.id, amount: '999999' }, over)).text).toBe(refused.text);
    expect(await amountRefunded(c, p.id)).toBe('100');
  });
});

describe('reads', () => {
  let m: Client;
  let p1: any;
  let p2: any;
  const ids: string[] = [];

  beforeAll(async () => {
    m = await srv.merchant();
    p1 = await succeededPayment(m);
    p2 = await succeededPayment(m);
    for (const [p, amount] of [
      [p1, '100'],
      [p2, '200'],
      [p1, '300'],
      [p2, '400'],
    ] as const)
      ids.unshift((await createRefund(m, { payment_intent: p.id, amount, merchant_reference: ref('re') })).id);
    await m.post(`/v1/test_helpers/refunds/${ids[0]}/succeed`);
  });

  test('get, scoped: foreign and other-environment ids are the same 404', async () => {
    const r = await m.get(`/v1/refunds/${ids[0]}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: ids[0], status: 'succeeded', amount: '400' });
    expect((await c.get(`/v1/refunds/${ids[0]}`)).status).toBe(404);
    const live = await srv.keyFor(m.merchantId, 'live');
    expect((await live.get(`/v1/refunds/${ids[0]}`)).status).toBe(404);
    expect((await m.get('/v1/refunds/re_nope')).body.error.code).toBe('not_found');
  });

  test('list: newest first, pages with a cursor, every listing filter and payment_intent', async () => {
    const all = (await m.get('/v1/refunds')).body;
    expect(all.data.map((r: any) => r.id)).toEqual(ids);
    expect(all).toMatchObject({ has_more: false, next_cursor: null });
    const page1 = (await m.get('/v1/refunds?limit=3')).body;
    expect(page1.has_more).toBe(true);
    const page2 = (await m.get(`/v1/refunds?limit=3&cursor=${page1.next_cursor}`)).body;
    expect([...page1.data, ...page2.data].map((r: any) => r.id)).toEqual(ids);
    const only = async (q: string) => (await m.get(`/v1/refunds?${q}`)).body.data.map((r: any) => r.id);
    expect(await only(`payment_intent=${p1.id}`)).toEqual([ids[1], ids[3]]);
    expect(await only(`payment_intent=${p2.id}&status=pending`)).toEqual([ids[2]]);
    expect(await only('status=succeeded')).toEqual([ids[0]]);
    expect(await only('status=pending,succeeded&currency=THB&country=TH')).toEqual(ids);
    expect(await only('currency=IDR')).toEqual([]);
    const one = (await m.get(`/v1/refunds/${ids[2]}`)).body;
    expect(await only(`merchant_reference=${one.merchant_reference}`)).toEqual([ids[2]]);
    expect(await only(`created_gte=${encodeURIComponent(one.created_at)}&created_lt=2999-01-01T00:00:00Z`)).toEqual(ids.slice(0, 3));
    expect(await only('payment_intent=pi_unknown')).toEqual([]);
    // Listing rules: unknown parameters, bad values and other lists' cursors are 400.
    for (const [q, param] of [
      ['zz=1', 'zz'],
      ['status=done', 'status'],
      ['limit=101', 'limit'],
      ['payment_intent=', 'payment_intent'],
      ['created_gte=2026-02-30T00:00:00Z', 'created_gte'],
    ]) {
      const res = await m.get(`/v1/refunds?${q}`);
      expect({ q, status: res.status, param: res.body.error?.param }).toEqual({ q, status: 400, param });
    }
    const payoutCursor = (await m.get('/v1/payment_intents?limit=1')).body.next_cursor;
    expect((await m.get(`/v1/refunds?cursor=${payoutCursor}`)).body.error.param).toBe('cursor');
    expect((await c.get('/v1/refunds')).body.data.map((r: any) => r.id)).not.toContain(ids[0]);
  });

  test('GraphQL: refund(id), refunds(first, after, filter), PaymentIntent.amountRefunded and refunds, Refund.paymentIntent', async () => {
    const one = await m.gql(
      `query($id: ID!) { refund(id: $id) { id paymentIntentId amount currency environment status reason merchantReference failureCode failureMessage createdAt updatedAt paymentIntent { id amountRefunded } } }`,
      { id: ids[0] },
    );
    expect(one.body.errors).toBeUndefined();
    const rest = (await m.get(`/v1/refunds/${ids[0]}`)).body;
    expect(one.body.data.refund).toEqual({
      id: rest.id,
      paymentIntentId: p2.id,
      amount: '400',
      currency: 'THB',
      environment: 'TEST',
      status: 'SUCCEEDED',
      reason: null,
      merchantReference: rest.merchant_reference,
      failureCode: null,
      failureMessage: null,
      createdAt: rest.created_at,
      updatedAt: rest.updated_at,
      paymentIntent: { id: p2.id, amountRefunded: '600' },
    });
    const missing = await c.gql('query($id: ID!) { refund(id: $id) { id } }', { id: ids[0] });
    expect(missing.body.data!.refund).toBeNull();
    expect(missing.body.errors![0].extensions.code).toBe('not_found');

    const list = await m.gql(`query($f: RefundFilter) { refunds(first: 1, filter: $f) { nodes { id } pageInfo { hasNextPage endCursor } } }`, {
      f: { paymentIntent: p1.id, status: ['PENDING'] },
    });
    expect(list.body.data.refunds.nodes).toEqual([{ id: ids[1] }]);
    const next = await m.gql(
      `query($after: String) { refunds(first: 5, after: $after, filter: { paymentIntent: "${p1.id}" }) { nodes { id } pageInfo { hasNextPage } } }`,
      { after: list.body.data.refunds.pageInfo.endCursor },
    );
    expect(next.body.data.refunds).toEqual({ nodes: [{ id: ids[3] }], pageInfo: { hasNextPage: false } });
    const bad = await m.gql('{ refunds(first: 500) { nodes { id } } }');
    expect(bad.body.errors![0].extensions).toMatchObject({ code: 'validation_error', param: 'first' });

    const pis = await m.gql(`query($id: ID!) { paymentIntent(id: $id) { id amountRefunded refunds(first: 10) { nodes { id amount status } } } }`, {
      id: p1.id,
    });
    expect(pis.body.data.paymentIntent).toEqual({
      id: p1.id,
      amountRefunded: '400',
      refunds: {
        nodes: [
          { id: ids[1], amount: '300', status: 'PENDING' },
          { id: ids[3], amount: '100', status: 'PENDING' },
        ],
      },
    });
    const listed = await m.gql('{ paymentIntents(first: 2) { nodes { id amountRefunded } } }');
    expect(listed.body.data.paymentIntents.nodes).toEqual([
      { id: p2.id, amountRefunded: '600' },
      { id: p1.id, amountRefunded: '400' },
    ]);
  });

  test('GraphQL createRefund: the same rules and codes as REST', async () => {
    const p = await succeededPayment(m, '1000');
    const mutation =
      'mutation($input: CreateRefundInput!) { createRefund(input: $input) { id amount status reason merchantReference paymentIntent { amountRefunded } } }';
    const made = await m.gql(mutation, {
      input: { paymentIntent: p.id, amount: '400', reason: 'late delivery', merchantReference: 'gql-1' },
    });
    expect(made.body.errors).toBeUndefined();
    expect(made.body.data.createRefund).toMatchObject({
      amount: '400',
      status: 'PENDING',
      reason: 'late delivery',
      merchantReference: 'gql-1',
      paymentIntent: { amountRefunded: '400' },
    });
    const repeat = await m.gql(mutation, { input: { paymentIntent: p.id, merchantReference: 'gql-1' } });
    expect(repeat.body.data.createRefund.id).toBe(made.body.data.createRefund.id);
    const full = await m.gql(mutation, { input: { paymentIntent: p.id } });
    expect(full.body.data.createRefund.amount).toBe('600');
    const over = await m.gql(mutation, { input: { paymentIntent: p.id, amount: '1' } });
    expect(over.body.errors![0].extensions.code).toBe('refund_exceeds_payment');
    const hosted = await createPayment(m, paymentBody({ checkout_mode: 'hosted' }));
    const wrong = await m.gql(mutation, { input: { paymentIntent: hosted.id } });
    expect(wrong.body.errors![0].extensions.code).toBe('invalid_state');
    const invalid = await m.gql(mutation, { input: { paymentIntent: p.id, amount: 'ten' } });
    expect(invalid.body.errors![0].extensions).toMatchObject({ code: 'validation_error', param: 'input.amount' });
  });
});
