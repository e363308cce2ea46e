/**
 * Black-box contract checklist: one assertion group per concrete statement of
 * docs/payments-api.md and docs/contract.md, over real HTTP (and GraphQL where the
 * contract names GraphQL). Nothing here reaches into the service's internals except to
 * create merchants and keys (the provisioning the contract gives a CLI for, which is
 * itself checked below).
 */
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { execFile } from 'node:child_process';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { startReceiver } from '../helpers/receiver';
import { promisify } from 'node:util';
import { runCli, startServer, TEST_ENCRYPTION_KEY, TestServer } from '../helpers/server';
import { loadConfig } from '../../src/config';
import { Client, Res, eventually, payoutBody, ref } from '../helpers/client';
import { waitForStatus } from '../helpers/fixtures';
import { expectError } from '../helpers/errors';

const run = promisify(execFile);

let srv: TestServer;
let m: Client; // funded test merchant
let other: Client; // another merchant (test)
let live: Client; // first merchant's live key
/** Every response of this file, so Request-Id can be checked across all of them. */
const seen: Res[] = [];

function track(res: Res): Res {
  seen.push(res);
  return res;
}
const get = async (c: Client, p: string, o?: Parameters<Client['request']>[2]) => track(await c.get(p, o));
const post = async (c: Client, p: string, body?: unknown, o?: Parameters<Client['request']>[2]) => track(await c.post(p, body, o));
const del = async (c: Client, p: string) => track(await c.request('DELETE', p));

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const idem = () => `k-${ref('idem')}`;

function paymentBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    amount: '50000',
    currency: 'THB',
    country: 'TH',
    merchant_reference: ref('pi'),
    customer: { name: 'Somchai Jaidee' },
    payment_method: 'promptpay',
    ...overrides,
  };
}
function topupBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return { amount: '10000', currency: 'THB', country: 'TH', merchant_reference: ref('tu'), ...overrides };
}
async function topup(c: Client = m, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await post(c, '/v1/topup_intents', topupBody(overrides), { idempotencyKey: idem() });
  expect(res.status).toBe(201);
  return res.body;
}
async function payout(c: Client = m, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await post(c, '/v1/payout_intents', payoutBody(overrides));
  expect(res.status).toBe(201);
  return res.body;
}
async function payment(c: Client = m, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await post(c, '/v1/payment_intents', paymentBody(overrides));
  expect(res.status).toBe(201);
  return res.body;
}

beforeAll(async () => {
  srv = await startServer();
  m = await srv.merchant();
  other = await srv.merchant();
  live = await srv.keyFor(m.merchantId, 'live');
}, 60000);

afterAll(async () => {
  await srv?.close();
});

describe('Addresses', () => {
  test('/healthz and /readyz answer 200', async () => {
    expect((await get(srv.client(), '/healthz')).status).toBe(200);
    expect((await get(srv.client(), '/readyz')).status).toBe(200);
  });

  test('/v1/openapi.json is an OpenAPI document naming every REST route of the contract', async () => {
    const res = await get(srv.client(), '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.servers).toEqual([{ url: '/v1' }]);
    const paths = Object.keys(res.body.paths).map((p) => `/v1${p}`);
    for (const p of [
      '/v1/payment_intents',
      '/v1/payment_intents/{id}',
      '/v1/payment_intents/{id}/cancel',
      '/v1/payment_method_options',
      '/v1/payout_intents',
      '/v1/payout_intents/{id}',
      '/v1/payout_intents/{id}/approve',
      '/v1/payout_intents/{id}/cancel',
      '/v1/topup_intents',
      '/v1/topup_intents/{id}',
      '/v1/balances',
      '/v1/events',
      '/v1/events/{id}',
      '/v1/webhook_endpoints',
      '/v1/webhook_endpoints/{id}',
      '/v1/test_helpers/payment_intents/{id}/succeed',
      '/v1/test_helpers/payment_intents/{id}/fail',
      '/v1/test_helpers/payment_intents/{id}/expire',
      '/v1/test_helpers/topup_intents/{id}/succeed',
      '/v1/test_helpers/topup_intents/{id}/fail',
      '/v1/test_helpers/payout_intents/{id}/succeed',
      '/v1/test_helpers/payout_intents/{id}/fail',
    ])
      expect(paths).toContain(p);
  });

  test('/graphql answers POST and GET', async () => {
    const p = track(await m.gql('{ __typename }'));
    expect(p.status).toBe(200);
    expect(p.body.data).toEqual({ __typename: 'Query' });
    // A plain GraphQL-over-HTTP GET: no preflight-forcing header.
    const g = await get(m, `/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(g.status).toBe(200);
    expect(g.body.data).toEqual({ __typename: 'Query' });
    const v = await get(
      m,
      `/graphql?query=${encodeURIComponent('query($n: Int) { topupIntents(first: $n) { nodes { id } } }')}&variables=${encodeURIComponent('{"n":1}')}`,
      { headers: { accept: 'application/json' } },
    );
    expect(v.status).toBe(200);
    expect(v.body.data.topupIntents.nodes).toHaveLength(1);
    // Not part of the contract, the reason GET is safe: mutations are refused over GET.
    const mut = await get(m, `/graphql?query=${encodeURIComponent('mutation { approvePayoutIntent(id: "po_x") { id } }')}`);
    expect(mut.status).toBe(405);
  });

  test('/checkout/:token is the next_action.url of a hosted intent and serves a page', async () => {
    const pi = await payment(m, { checkout_mode: 'hosted', payment_method: undefined });
    expect(pi.status).toBe('requires_action');
    expect(pi.checkout_mode).toBe('hosted');
    expect(pi.next_action.type).toBe('redirect_to_url');
    expect(pi.next_action.expires_at).toMatch(TS);
    const url = new URL(pi.next_action.url);
    expect(url.pathname).toMatch(/^\/checkout\/[^/]+$/);
    const page = track(await srv.client().get(url.pathname));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
  });
});

describe('REST routes and success statuses', () => {
  test('POST /payment_intents: 201 new; 200 original on same merchant_reference + fingerprint; 409 on changed fingerprint', async () => {
    const body = paymentBody({
      amount: '050000',
      device_fingerprint: 'dfp-1',
      external_reference: 'ext-1',
      metadata: { a: '1' },
      return_url: 'https://shop.example/return',
    });
    const first = await post(m, '/v1/payment_intents', body);
    expect(first.status).toBe(201);
    expect(first.body.object).toBe('payment_intent');
    expect(first.body.amount).toBe('50000');
    const again = await post(m, '/v1/payment_intents', { ...body, amount: '50000' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    for (const change of [
      { device_fingerprint: 'dfp-2' },
      { external_reference: 'ext-2' },
      { amount: '50001' },
      { metadata: { a: '2' } },
      { return_url: 'https://shop.example/other' },
      { customer: { name: 'Other' } },
      { currency: 'IDR' },
      { country: 'ID' },
      { payment_method: 'bank_transfer', payment_method_options: { bank: 'KBANK', account_name: 'A', account_number: '1234567890' } },
      { checkout_mode: 'hosted', payment_method: undefined },
    ]) {
      expectError(await post(m, '/v1/payment_intents', { ...body, ...change }), 409, 'idempotency_conflict');
    }
  });

  test('payment intent record carries the spec fields', async () => {
    const pi = await payment();
    for (const f of [
      'object',
      'id',
      'amount',
      'currency',
      'country',
      'environment',
      'checkout_mode',
      'status',
      'merchant_reference',
      'payment_method',
      'next_action',
      'failure_code',
      'failure_message',
      'processing_reason',
      'receipt',
      'amount_refunded',
      'created_at',
      'updated_at',
    ]) {
      expect(pi).toHaveProperty(f);
    }
    expect(pi.environment).toBe('test');
    expect(pi.amount_refunded).toBe('0');
    expect(pi.checkout_mode).toBe('direct');
    expect(pi.payment_method).toBe('promptpay');
    expect(pi.created_at).toMatch(TS);
    expect(pi.updated_at).toMatch(TS);
    const list = await get(m, '/v1/payment_intents?limit=1');
    expect(list.body.data[0]).toHaveProperty('processing_reason');
    expect(list.body.data[0]).toHaveProperty('receipt');
  });

  test('direct payment without payment_method: the service picks an eligible method', async () => {
    const pi = await payment(m, { payment_method: undefined });
    expect(typeof pi.payment_method).toBe('string');
  });

  test('GET /payment_intents and /payment_intents/:id are 200; cancel is 200 from requires_action, else 422 invalid_state', async () => {
    const pi = await payment();
    expect((await get(m, '/v1/payment_intents')).status).toBe(200);
    expect((await get(m, `/v1/payment_intents/${pi.id}`)).status).toBe(200);
    const cancel = await post(m, `/v1/payment_intents/${pi.id}/cancel`, {});
    expect(cancel.status).toBe(200);
    expect(cancel.body.status).toBe('cancelled');
    expectError(await post(m, `/v1/payment_intents/${pi.id}/cancel`, {}), 422, 'invalid_state');
  });

  test('payment test helpers succeed/fail/expire are 200; wrong state is 422 invalid_state', async () => {
    for (const [action, status] of [
      ['succeed', 'succeeded'],
      ['fail', 'failed'],
      ['expire', 'expired'],
    ]) {
      const pi = await payment();
      const res = await post(m, `/v1/test_helpers/payment_intents/${pi.id}/${action}`, {});
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
      expectError(await post(m, `/v1/test_helpers/payment_intents/${pi.id}/${action}`, {}), 422, 'invalid_state');
    }
  });

  test('POST /payout_intents: 201 new; 200 original on repeated merchant_reference whatever the body', async () => {
    const body = payoutBody();
    const first = await post(m, '/v1/payout_intents', body);
    expect(first.status).toBe(201);
    const again = await post(m, '/v1/payout_intents', {
      ...body,
      amount: '999',
      recipient: { ...(body.recipient as object), holder_name: 'Someone Else' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await get(m, '/v1/payout_intents')).status).toBe(200);
    expect((await get(m, `/v1/payout_intents/${first.body.id}`)).status).toBe(200);
  });

  test('payout record: spec fields, recipient with account_last4 only (never the full number)', async () => {
    const res = await post(
      m,
      '/v1/payout_intents',
      payoutBody({ recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '9876543210', holder_name: 'Somchai Jaidee' } }),
    );
    expect(res.status).toBe(201);
    expect(res.body.recipient).toEqual({ type: 'bank_account', bank_code: 'KBANK', account_last4: '3210', holder_name: 'Somchai Jaidee' });
    expect(res.text).not.toContain('9876543210');
    for (const f of [
      'object',
      'id',
      'amount',
      'currency',
      'country',
      'environment',
      'status',
      'merchant_reference',
      'recipient',
      'failure_code',
      'failure_message',
      'created_at',
      'updated_at',
    ]) {
      expect(res.body).toHaveProperty(f);
    }
    expect(res.body.object).toBe('payout_intent');
    expect(res.body.status).toBe('requires_approval');
    const read = await get(m, `/v1/payout_intents/${res.body.id}`);
    expect(read.text).not.toContain('9876543210');
    const list = await get(m, '/v1/payout_intents');
    expect(list.text).not.toContain('9876543210');
  });

  test('approve is 202 requires_approval -> processing; again 422 invalid_state; cancel then 422 approval_required naming the status', async () => {
    const po = await payout();
    const ok = await post(m, `/v1/payout_intents/${po.id}/approve`, {});
    expect(ok.status).toBe(202);
    expect(ok.body.status).toBe('processing');
    expectError(await post(m, `/v1/payout_intents/${po.id}/approve`, {}), 422, 'invalid_state');
    const c = await post(m, `/v1/payout_intents/${po.id}/cancel`, {});
    expectError(c, 422, 'approval_required');
    expect(c.body.error.message).toContain('processing');
    expect((await get(m, `/v1/payout_intents/${po.id}`)).body.status).toBe('processing');
  });

  test('cancel rule 1: 202 cancelled, failure_code cancelled, failure_message the reason; event payout_intent.cancelled', async () => {
    const po = await payout();
    const res = await post(m, `/v1/payout_intents/${po.id}/cancel`, { reason: 'customer asked' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: po.id, status: 'cancelled', failure_code: 'cancelled', failure_message: 'customer asked' });
    const events = await get(m, '/v1/events?limit=100');
    const ev = events.body.data.find((e: any) => e.type === 'payout_intent.cancelled' && e.data.object.id === po.id);
    expect(ev).toBeDefined();
    expect(ev.data.object.failure_message).toBe('customer asked');
    // The reason is stored on the payout and appears in the audit log.
    expect((await get(m, `/v1/payout_intents/${po.id}`)).body.failure_message).toBe('customer asked');
    const audit = await get(m, '/v1/audit_log?limit=100');
    expect(audit.body.data.some((a: any) => a.resource_id === po.id && a.reason === 'customer asked')).toBe(true);
    // terminal: approval_required naming the status
    const again = await post(m, `/v1/payout_intents/${po.id}/cancel`, {});
    expectError(again, 422, 'approval_required');
    expect(again.body.error.message).toContain('cancelled');
  });

  test('cancel reason over 512 characters is 400 validation_error param reason; 512 is fine', async () => {
    const po = await payout();
    expectError(await post(m, `/v1/payout_intents/${po.id}/cancel`, { reason: 'x'.repeat(513) }), 400, 'validation_error', 'reason');
    expect((await post(m, `/v1/payout_intents/${po.id}/cancel`, { reason: 'x'.repeat(512) })).status).toBe(202);
  });

  test('cancel rules 3-4: unknown/foreign/other-environment 404; same Idempotency-Key different body 409', async () => {
    const po = await payout();
    expectError(await post(m, '/v1/payout_intents/po_doesnotexist/cancel', {}), 404, 'not_found');
    expectError(await post(other, `/v1/payout_intents/${po.id}/cancel`, {}), 404, 'not_found');
    expectError(await post(live, `/v1/payout_intents/${po.id}/cancel`, {}), 404, 'not_found');
    const key = idem();
    expect((await post(m, `/v1/payout_intents/${po.id}/cancel`, { reason: 'a' }, { idempotencyKey: key })).status).toBe(202);
    expectError(await post(m, `/v1/payout_intents/${po.id}/cancel`, { reason: 'b' }, { idempotencyKey: key }), 409, 'idempotency_conflict');
  });

  test('payout test helpers succeed/fail are 200 after approval; wrong state 422 invalid_state', async () => {
    for (const [outcome, status] of [
      ['succeed', 'succeeded'],
      ['fail', 'failed'],
    ]) {
      const po = await payout();
      expectError(await post(m, `/v1/test_helpers/payout_intents/${po.id}/${outcome}`, {}), 422, 'invalid_state');
      expect((await post(m, `/v1/payout_intents/${po.id}/approve`, {})).status).toBe(202);
      const res = await post(m, `/v1/test_helpers/payout_intents/${po.id}/${outcome}`, {});
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
    }
  });

  test('POST /topup_intents: 201; Idempotency-Key required; repeated merchant_reference 409 duplicate_merchant_reference', async () => {
    const body = topupBody();
    expectError(await post(m, '/v1/topup_intents', body), 400, 'idempotency_key_required');
    const first = await post(m, '/v1/topup_intents', body, { idempotencyKey: idem() });
    expect(first.status).toBe(201);
    expectError(await post(m, '/v1/topup_intents', body, { idempotencyKey: idem() }), 409, 'duplicate_merchant_reference');
    expect((await get(m, '/v1/topup_intents')).status).toBe(200);
    expect((await get(m, `/v1/topup_intents/${first.body.id}`)).status).toBe(200);
  });

  test('topup record shape', async () => {
    const t = await topup();
    expect(Object.keys(t).sort()).toEqual(
      [
        'amount',
        'country',
        'created_at',
        'currency',
        'environment',
        'failure_code',
        'failure_message',
        'id',
        'merchant_reference',
        'next_action',
        'object',
        'status',
        'updated_at',
      ].sort(),
    );
    expect(t.object).toBe('topup_intent');
    expect(t.status).toBe('requires_action');
    expect(t.next_action).not.toBeNull();
    expect(t.next_action.type).toBe('display_bank_transfer_instructions');
    expect(t.failure_code).toBeNull();
    expect(t.failure_message).toBeNull();
  });

  test('topup test helpers succeed/fail are 200; wrong state 422 invalid_state', async () => {
    for (const [outcome, status] of [
      ['succeed', 'succeeded'],
      ['fail', 'failed'],
    ]) {
      const t = await topup();
      const res = await post(m, `/v1/test_helpers/topup_intents/${t.id}/${outcome}`, {});
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
      expectError(await post(m, `/v1/test_helpers/topup_intents/${t.id}/${outcome}`, {}), 422, 'invalid_state');
    }
  });

  test('test helpers with a live key are 404 not_found', async () => {
    await srv.fund(live, 'THB', '100000');
    const pi = await payment(live);
    const po = await payout(live);
    const t = await topup(m);
    for (const p of [
      `/v1/test_helpers/payment_intents/${pi.id}/succeed`,
      `/v1/test_helpers/payment_intents/${pi.id}/fail`,
      `/v1/test_helpers/payment_intents/${pi.id}/expire`,
      `/v1/test_helpers/payout_intents/${po.id}/succeed`,
      `/v1/test_helpers/payout_intents/${po.id}/fail`,
      `/v1/test_helpers/topup_intents/${t.id}/succeed`,
      `/v1/test_helpers/topup_intents/${t.id}/fail`,
    ])
      expectError(await post(live, p, {}), 404, 'not_found');
  });

  test('GET /balances: 200 {data:[balance...]} one per currency with the contract fields', async () => {
    const res = await get(m, '/v1/balances');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    const currencies = res.body.data.map((b: any) => b.currency);
    expect(new Set(currencies).size).toBe(currencies.length);
    const thb = res.body.data.find((b: any) => b.currency === 'THB');
    expect(Object.keys(thb).sort()).toEqual(['available', 'currency', 'environment', 'object', 'pending', 'reserved', 'updated_at']);
    expect(thb.object).toBe('balance');
    expect(thb.environment).toBe('test');
    for (const f of ['available', 'pending', 'reserved']) expect(thb[f]).toMatch(/^\d+$/);
    expect(thb.updated_at).toMatch(TS);
  });

  test('balance movements: payout reserves, cancel releases; succeeded topup adds to available', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const bal = async () => (await get(c, '/v1/balances')).body.data.find((b: any) => b.currency === 'THB') ?? { available: '0', reserved: '0' };
    const t = await topup(c, { amount: '5000' });
    expect((await post(c, `/v1/test_helpers/topup_intents/${t.id}/succeed`, {})).status).toBe(200);
    expect((await bal()).available).toBe('5000');
    const po = await payout(c, { amount: '2000' });
    expect(await bal()).toMatchObject({ available: '3000', reserved: '2000' });
    expectError(await post(c, '/v1/payout_intents', payoutBody({ amount: '3001' })), 422, 'insufficient_balance');
    expect((await post(c, `/v1/payout_intents/${po.id}/cancel`, {})).status).toBe(202);
    expect(await bal()).toMatchObject({ available: '5000', reserved: '0' });
    // failure moves it back; success removes it from reserved
    const failing = await payout(c, { amount: '1000' });
    await post(c, `/v1/payout_intents/${failing.id}/approve`, {});
    expect(await bal()).toMatchObject({ available: '4000', reserved: '1000' });
    expect((await post(c, `/v1/test_helpers/payout_intents/${failing.id}/fail`, {})).status).toBe(200);
    expect(await bal()).toMatchObject({ available: '5000', reserved: '0' });
    const paid = await payout(c, { amount: '1500' });
    await post(c, `/v1/payout_intents/${paid.id}/approve`, {});
    expect((await post(c, `/v1/test_helpers/payout_intents/${paid.id}/succeed`, {})).status).toBe(200);
    expect(await bal()).toMatchObject({ available: '3500', reserved: '0' });
    // a succeeded payment adds to available
    const pi = await payment(c, { amount: '2500' });
    expect((await post(c, `/v1/test_helpers/payment_intents/${pi.id}/succeed`, {})).status).toBe(200);
    expect(await bal()).toMatchObject({ available: '6000', reserved: '0' });
  });

  test('GET /payment_method_options: page envelope, option shape, empty when nothing eligible', async () => {
    const res = await get(m, '/v1/payment_method_options?amount=50000&currency=THB&country=TH');
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.data.length).toBeGreaterThan(0);
    const keys = new Set<string>();
    for (const o of res.body.data) {
      expect(Object.keys(o).sort()).toEqual(
        ['bank', 'display_name', 'max_amount', 'min_amount', 'next_action_type', 'object', 'options', 'payment_method'].sort(),
      );
      expect(o.object).toBe('payment_method_option');
      expect(Object.keys(o.options)).toEqual(['payer']);
      for (const v of Object.values(o.options.payer)) expect(v).toEqual({ required: true });
      expect(typeof o.min_amount).toBe('string');
      expect(typeof o.max_amount).toBe('string');
      const k = `${o.payment_method}/${o.bank}`;
      expect(keys.has(k)).toBe(false);
      keys.add(k);
    }
    expect(res.body.data.some((o: any) => o.bank === null)).toBe(true);
    expect(res.text).not.toMatch(/SiamPay|KrungPay|NusaPay|DirectLine|provider|siampay|krungpay|nusapay|directline/i);
    expect(res.text).not.toMatch(/SP-|KP_|sp-0|kp_|dl-|DL\//);
    for (const l of [res, await get(m, '/v1/payout_intents'), await get(m, '/v1/topup_intents'), await get(m, '/v1/events')]) {
      expect(Object.keys(l.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    }
    const none = await get(m, '/v1/payment_method_options?amount=999999999999999&currency=THB&country=TH');
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
    expect(none.body.has_more).toBe(false);
    expect(none.body.next_cursor).toBeNull();
    expect((await get(m, '/v1/payment_method_options?amount=50000&currency=THB&country=TH&checkout_mode=hosted')).status).toBe(200);
    // Strict pin to one provider narrows the union; the key's environment matters too.
    const pinned = await get(m, '/v1/payment_method_options?amount=50000&currency=THB&country=TH&provider=directline');
    expect(pinned.body.data.length).toBeGreaterThan(0);
    expect(new Set(pinned.body.data.map((o: any) => o.payment_method))).toEqual(new Set(['direct_debit']));
    const liveOpts = await get(live, '/v1/payment_method_options?amount=50000&currency=THB&country=TH');
    expect(liveOpts.body.data.map((o: any) => o.payment_method)).not.toContain('direct_debit');
    expectError(await get(m, '/v1/payment_method_options?amount=50000&currency=THB&country=TH&colour=red'), 400, 'validation_error', 'colour');
    // The discovery object must not be sent back unchanged.
    const withPayer = res.body.data.find((o: any) => Object.keys(o.options.payer).length > 0);
    expectError(
      await post(m, '/v1/payment_intents', paymentBody({ payment_method: withPayer.payment_method, payment_method_options: withPayer.options })),
      400,
      'validation_error',
      'payment_method_options.payer',
    );
  });

  test('a named payment_method that is not eligible is 422 payment_method_unavailable', async () => {
    expectError(await post(m, '/v1/payment_intents', paymentBody({ payment_method: 'online_banking', amount: '100' })), 422, 'payment_method_unavailable');
    expectError(
      await post(m, '/v1/payment_intents', paymentBody({ payment_method: 'bank_transfer', payment_method_options: { bank: 'BCA' } })),
      422,
      'payment_method_unavailable',
    );
  });

  test('GET /events and /events/:id: 200, event object shape', async () => {
    const list = await get(m, '/v1/events');
    expect(list.status).toBe(200);
    const ev = list.body.data[0];
    expect(Object.keys(ev).sort()).toEqual(['actor', 'created_at', 'data', 'environment', 'id', 'object', 'type']);
    expect(ev.object).toBe('event');
    // The actor behind the change (the contract's third-round addition): this key, or null for the system's changes.
    if (ev.actor !== null) expect(ev.actor).toEqual({ type: 'api_key', id: expect.stringMatching(/^key_/), restricted: false });
    expect(Object.keys(ev.data)).toEqual(['object']);
    const one = await get(m, `/v1/events/${ev.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(ev);
    expectError(await get(other, `/v1/events/${ev.id}`), 404, 'not_found');
  });

  test('event types: <resource>.created and <resource>.<new status>; data.object is the REST record', async () => {
    const c = await srv.merchant();
    const po = await payout(c);
    await post(c, `/v1/payout_intents/${po.id}/approve`, {});
    const done = await post(c, `/v1/test_helpers/payout_intents/${po.id}/succeed`, {});
    const pi = await payment(c);
    await post(c, `/v1/test_helpers/payment_intents/${pi.id}/succeed`, {});
    const events = (await get(c, '/v1/events?limit=100')).body.data;
    const types = events.map((e: any) => e.type);
    for (const t of [
      'payout_intent.created',
      'payout_intent.processing',
      'payout_intent.succeeded',
      'payment_intent.created',
      'payment_intent.succeeded',
      'topup_intent.created',
      'topup_intent.succeeded',
    ]) {
      expect(types).toContain(t);
    }
    const succeeded = events.find((e: any) => e.type === 'payout_intent.succeeded');
    expect(succeeded.data.object).toEqual(done.body);
  });

  test('events: a cursor (page cursor or event id) from another merchant, environment or resource is 400', async () => {
    const c = await srv.merchant();
    const mine = (await get(c, '/v1/events?limit=1')).body;
    const theirs = (await get(other, '/v1/events?limit=1')).body.data[0];
    expectError(await get(c, `/v1/events?cursor=${theirs.id}`), 400, 'validation_error', 'cursor');
    expectError(await get(other, `/v1/events?cursor=${encodeURIComponent(mine.next_cursor ?? mine.data[0].id)}`), 400, 'validation_error', 'cursor');
    const liveKey = await srv.keyFor(c.merchantId, 'live');
    expectError(await get(liveKey, `/v1/events?cursor=${mine.data[0].id}`), 400, 'validation_error', 'cursor');
    const topupCursor = (await get(m, '/v1/topup_intents?limit=1')).body.next_cursor;
    expectError(await get(m, `/v1/events?cursor=${encodeURIComponent(topupCursor)}`), 400, 'validation_error', 'cursor');
  });

  test('payment method discovery validates its query parameters', async () => {
    expectError(await get(m, '/v1/payment_method_options?amount=1.5&currency=THB&country=TH'), 400, 'validation_error', 'amount');
    expectError(await get(m, '/v1/payment_method_options?amount=100&currency=THB&country=TH&checkout_mode=popup'), 400, 'validation_error', 'checkout_mode');
    expectError(await get(m, '/v1/payment_method_options?amount=100&currency=THB&country=THA'), 400, 'validation_error', 'country');
  });

  test('events: cursor accepts an event id', async () => {
    const c = await srv.merchant();
    await payout(c);
    const all = (await get(c, '/v1/events?limit=100')).body.data;
    expect(all.length).toBeGreaterThanOrEqual(3);
    const res = await get(c, `/v1/events?cursor=${all[0].id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: any) => e.id)).toEqual(all.slice(1).map((e: any) => e.id));
  });

  test('webhook endpoints: 201 with secret once; GET/list/DELETE 200 without secret', async () => {
    const created = await post(m, '/v1/webhook_endpoints', {
      url: 'http://127.0.0.1:9/hook',
      enabled_events: ['payout_intent.cancelled', 'payment_intent.*'],
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const one = await get(m, `/v1/webhook_endpoints/${created.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('secret');
    expect(one.text).not.toContain(created.body.secret);
    const list = await get(m, '/v1/webhook_endpoints');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.body.secret);
    const all = await post(m, '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/all' });
    expect(all.status).toBe(201);
    expect((await del(m, `/v1/webhook_endpoints/${created.body.id}`)).status).toBe(200);
    expect((await del(m, `/v1/webhook_endpoints/${all.body.id}`)).status).toBe(200);
    expectError(await get(m, `/v1/webhook_endpoints/${created.body.id}`), 404, 'not_found');
  });
});

describe('Events, webhooks and the subscription', () => {
  test('webhook delivery follows Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature v1,<base64 HMAC-SHA256>', async () => {
    const rx = await startReceiver();
    try {
      const c = await srv.merchant();
      const ep = await post(c, '/v1/webhook_endpoints', { url: `${rx.url}/hook`, enabled_events: ['payout_intent.cancelled'] });
      expect(ep.status).toBe(201);
      const po = await payout(c);
      await post(c, `/v1/payout_intents/${po.id}/cancel`, { reason: 'signed reason' });
      const r = await eventually(async () => rx.received[0], 15000);
      expect(rx.received).toHaveLength(1);
      const id = r.headers['webhook-id'] as string;
      const ts = r.headers['webhook-timestamp'] as string;
      const sig = r.headers['webhook-signature'] as string;
      expect(ts).toMatch(/^\d+$/);
      const key = Buffer.from(ep.body.secret.slice('whsec_'.length), 'base64');
      const expected = createHmac('sha256', key).update(`${id}.${ts}.${r.body}`).digest('base64');
      expect(sig.split(' ')).toContain(`v1,${expected}`);
      const event = JSON.parse(r.body);
      expect(event.type).toBe('payout_intent.cancelled');
      expect(event.data.object.failure_message).toBe('signed reason');
      expect(event).toEqual((await get(c, `/v1/events/${event.id}`)).body);
    } finally {
      await rx.close();
    }
  }, 30000);

  test('subscription events(types, after) over graphql-ws with connectionParams.authorization replays what was missed', async () => {
    const c = await srv.merchant();
    const first = (await get(c, '/v1/events?limit=1')).body.data[0];
    const po = await payout(c);
    await post(c, `/v1/payout_intents/${po.id}/cancel`, {});
    await topup(c);
    const url = srv.url.replace(/^http/, 'ws') + '/graphql';
    const ws = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: c.authorization }, retryAttempts: 0 });
    const got: any[] = [];
    const errors: any[] = [];
    const dispose = ws.subscribe(
      {
        query: 'subscription($t: [String!], $a: String) { events(types: $t, after: $a) { id type data { object } } }',
        variables: { t: ['payout_intent.*'], a: first.id },
      },
      {
        next: (msg: any) => (msg.errors ? errors.push(...msg.errors) : got.push(msg.data.events)),
        error: (e: any) => errors.push(e),
        complete: () => undefined,
      },
    );
    try {
      await eventually(async () => got.length >= 2 || errors.length > 0, 10000);
      expect(errors).toEqual([]);
      expect(got.map((e) => e.type)).toEqual(['payout_intent.created', 'payout_intent.cancelled']);
      const rest = (await get(c, `/v1/events/${got[1].id}`)).body;
      expect(got[1].data.object).toEqual(rest.data.object);
    } finally {
      dispose();
      await ws.dispose();
    }
  }, 30000);

  test('GET /events follows the listing rules (limit, unknown parameter)', async () => {
    expectError(await get(m, '/v1/events?limit=0'), 400, 'validation_error', 'limit');
    expectError(await get(m, '/v1/events?colour=red'), 400, 'validation_error', 'colour');
    const last = await get(m, '/v1/events?limit=100&created_gte=2000-01-01T00:00:00Z');
    expect(last.status).toBe(200);
    for (const e of last.body.data) expect(e.created_at).toMatch(TS);
  });
});

describe('States and settlement', () => {
  test('every transition emits <resource>.<new status> whose data.object is the record the route returned', async () => {
    const c = await srv.merchant();
    const returned: any[] = [];
    for (const action of ['succeed', 'fail', 'expire']) {
      const pi = await payment(c);
      returned.push((await post(c, `/v1/test_helpers/payment_intents/${pi.id}/${action}`, {})).body);
    }
    const pc = await payment(c);
    returned.push((await post(c, `/v1/payment_intents/${pc.id}/cancel`, {})).body);
    for (const outcome of ['succeed', 'fail']) {
      const t = await topup(c);
      returned.push((await post(c, `/v1/test_helpers/topup_intents/${t.id}/${outcome}`, {})).body);
      const po = await payout(c);
      returned.push((await post(c, `/v1/payout_intents/${po.id}/approve`, {})).body);
      returned.push((await post(c, `/v1/test_helpers/payout_intents/${po.id}/${outcome}`, {})).body);
    }
    const events = (await get(c, '/v1/events?limit=100')).body.data;
    for (const rec of returned) {
      const ev = events.find((e: any) => e.type === `${rec.object}.${rec.status}` && e.data.object.id === rec.id);
      expect(ev && { type: ev.type, object: ev.data.object }).toEqual({ type: `${rec.object}.${rec.status}`, object: rec });
      expect(ev.environment).toBe('test');
      expect(ev.created_at).toMatch(TS);
    }
  });

  test('simulated providers settle on their own after SIMULATED_SETTLE_MS: success, or the failure_code of the magic account number', async () => {
    const timed = await startServer({ env: { SIMULATED_SETTLE_MS: '200' }, database: srv.database });
    try {
      const c = new Client(timed.url, m.auth, m.key);
      const ok = await payout(c);
      const bad = await payout(c, {
        recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '000111111116', holder_name: 'A B' },
      });
      for (const po of [ok, bad]) expect((await post(c, `/v1/payout_intents/${po.id}/approve`, {})).status).toBe(202);
      const settledOk = await waitForStatus(c, `/v1/payout_intents/${ok.id}`, (s) => s !== 'processing', 15000);
      expect(settledOk.status).toBe('succeeded');
      const settledBad = await waitForStatus(c, `/v1/payout_intents/${bad.id}`, (s) => s !== 'processing', 15000);
      expect([settledBad.status, settledBad.failure_code]).toEqual(['failed', 'account_closed']);
      expect(settledBad.recipient.account_last4).toBe('1116');
      // The test helper on a record the timer already settled finds it terminal.
      expectError(await post(c, `/v1/test_helpers/payout_intents/${ok.id}/fail`, {}), 422, 'invalid_state');
    } finally {
      await timed.close();
    }
  }, 30000);
});

describe('State names', () => {
  const STATES: Record<string, string[]> = {
    payment_intents: ['requires_action', 'processing', 'succeeded', 'failed', 'cancelled', 'expired'],
    payout_intents: ['requires_approval', 'processing', 'succeeded', 'failed', 'cancelled'],
    topup_intents: ['requires_action', 'succeeded', 'failed', 'expired'],
  };
  test.each(Object.keys(STATES))('every %s state of the contract is a status filter value (REST and GraphQL enum)', async (resource) => {
    expect((await get(m, `/v1/${resource}?status=${STATES[resource].join(',')}`)).status).toBe(200);
    const typeName = { payment_intents: 'PaymentIntent', payout_intents: 'PayoutIntent', topup_intents: 'TopupIntent' }[resource];
    const res = track(await m.gql(`{ __type(name: "${typeName}") { fields { name type { kind name ofType { name } } } } }`));
    const statusField = res.body.data.__type.fields.find((f: any) => f.name === 'status');
    const enumName = statusField.type.name ?? statusField.type.ofType.name;
    const values = track(await m.gql(`{ __type(name: "${enumName}") { enumValues { name } } }`)).body.data.__type.enumValues.map((v: any) => v.name);
    expect(values.sort()).toEqual(STATES[resource].map((x) => x.toUpperCase()).sort());
  });
});

describe('Configuration defaults', () => {
  test('PORT defaults to 4000 and overrides; SIMULATED_SETTLE_MS defaults to 2000', () => {
    expect(loadConfig({}).port).toBe(4000);
    expect(loadConfig({ PORT: '4100' }).port).toBe(4100);
    expect(loadConfig({}).simulatedSettleMs).toBe(2000);
  });
});

describe('Errors table', () => {
  test('400 validation_error names the path (customer.email)', async () => {
    expectError(await post(m, '/v1/payment_intents', paymentBody({ customer: { email: 'nope' } })), 400, 'validation_error', 'customer.email');
  });

  test.each([
    ['customer', (b: any) => delete b.customer],
    ['amount', (b: any) => delete b.amount],
    ['currency', (b: any) => delete b.currency],
    ['country', (b: any) => delete b.country],
    ['merchant_reference', (b: any) => delete b.merchant_reference],
  ])('payment create without %s is 400 validation_error', async (param, change) => {
    const b = paymentBody();
    change(b);
    expectError(await post(m, '/v1/payment_intents', b), 400, 'validation_error', param);
  });

  test.each(['amount', 'currency', 'country', 'merchant_reference', 'recipient'])('payout create without %s is 400 validation_error', async (param) => {
    const b: any = payoutBody();
    delete b[param];
    expectError(await post(m, '/v1/payout_intents', b), 400, 'validation_error', param);
  });

  test.each(['bank_code', 'account_number', 'holder_name'])('payout create without recipient.%s is 400', async (f) => {
    const b: any = payoutBody();
    delete b.recipient[f];
    expectError(await post(m, '/v1/payout_intents', b), 400, 'validation_error', `recipient.${f}`);
  });

  test.each(['amount', 'currency', 'country', 'merchant_reference'])('topup create without %s is 400 validation_error', async (param) => {
    const b: any = topupBody();
    delete b[param];
    expectError(await post(m, '/v1/topup_intents', b, { idempotencyKey: idem() }), 400, 'validation_error', param);
  });

  test('checkout_mode other than hosted/direct is 400', async () => {
    expectError(await post(m, '/v1/payment_intents', paymentBody({ checkout_mode: 'popup' })), 400, 'validation_error', 'checkout_mode');
  });

  test('environment cannot be overridden by the body', async () => {
    const res = await post(m, '/v1/payment_intents', paymentBody({ environment: 'live' }));
    if (res.status === 201) expect(res.body.environment).toBe('test');
    else expectError(res, 400, 'validation_error', 'environment');
  });

  test('400 invalid_json', async () => {
    expectError(await post(m, '/v1/payout_intents', undefined, { raw: '{"amount": ' }), 400, 'invalid_json');
  });

  test('401 unauthorized with WWW-Authenticate for missing, malformed, unknown, wrong secret, revoked; one message', async () => {
    const victim = await srv.merchant(undefined, 'test', { fund: false });
    const [pk, sk] = victim.auth!.split(':');
    await srv.app.auth.revokeKey(pk);
    const cases: Res[] = [
      await get(srv.client(), '/v1/balances'),
      await get(srv.client(), '/v1/balances', { headers: { authorization: 'Bearer abc' } }),
      await get(srv.client(), '/v1/balances', { headers: { authorization: 'Basic !!!' } }),
      await get(srv.client('pk_test_unknown:sk_test_unknown'), '/v1/balances'),
      await get(srv.client(`${m.auth!.split(':')[0]}:sk_test_wrong`), '/v1/balances'),
      await get(srv.client(`${pk}:${sk}`), '/v1/balances'),
      await post(srv.client(), '/v1/payout_intents', payoutBody()),
    ];
    const messages = new Set<string>();
    for (const res of cases) {
      track(res);
      expectError(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="payments"');
      messages.add(res.body.error.message);
    }
    expect(messages.size).toBe(1);
  });

  test('404 not_found: unknown, foreign and other-environment records; unknown routes', async () => {
    const pi = await payment();
    const po = await payout();
    const t = await topup();
    for (const [p, id] of [
      ['payment_intents', pi.id],
      ['payout_intents', po.id],
      ['topup_intents', t.id],
    ]) {
      expectError(await get(m, `/v1/${p}/${id}x`), 404, 'not_found');
      expectError(await get(other, `/v1/${p}/${id}`), 404, 'not_found');
      expectError(await get(live, `/v1/${p}/${id}`), 404, 'not_found');
    }
    expectError(await get(m, '/v1/no_such_route'), 404, 'not_found');
    expectError(await post(m, '/v1/no_such_route', {}), 404, 'not_found');
    expectError(await get(m, '/nowhere'), 404, 'not_found');
  });

  test('413 payload_too_large over 64 KiB; exactly 64 KiB is read', async () => {
    const base = payoutBody();
    const empty = Buffer.byteLength(JSON.stringify({ ...base, pad: '' }));
    const exact = JSON.stringify({ ...base, pad: 'x'.repeat(64 * 1024 - empty) });
    expect(Buffer.byteLength(exact)).toBe(64 * 1024);
    expectError(await post(m, '/v1/payout_intents', undefined, { raw: exact }), 400, 'validation_error', 'pad');
    const over = JSON.stringify({ ...base, pad: 'x'.repeat(64 * 1024 - empty + 1) });
    expectError(await post(m, '/v1/payout_intents', undefined, { raw: over }), 413, 'payload_too_large');
  });

  test('415 unsupported_media_type: POST without application/json', async () => {
    expectError(await post(m, '/v1/payout_intents', undefined, { raw: JSON.stringify(payoutBody()), noContentType: true }), 415, 'unsupported_media_type');
    expectError(
      await post(m, '/v1/payout_intents', undefined, { raw: JSON.stringify(payoutBody()), headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });

  test('429 rate_limited with Retry-After', async () => {
    const limited = await startServer({ env: { RATE_LIMIT_PER_SECOND: '2' }, database: srv.database, scheduler: false });
    try {
      const c = new Client(limited.url, m.auth, m.key);
      let hit: Res | undefined;
      for (let i = 0; i < 40 && !hit; i++) {
        const res = track(await c.get('/v1/balances'));
        if (res.status === 429) hit = res;
      }
      expect(hit).toBeDefined();
      expectError(hit!, 429, 'rate_limited');
      expect(Number(hit!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  test('GraphQL reports the same failures with extensions.code = the REST code string', async () => {
    const res = track(await m.gql('mutation($id: ID!) { approvePayoutIntent(id: $id) { id } }', { id: 'po_missing' }));
    expect(res.body.errors?.[0]?.extensions?.code).toBe('not_found');
    const po = await payout();
    await post(m, `/v1/payout_intents/${po.id}/approve`, {});
    const c = track(await m.gql('mutation($id: ID!) { cancelPayoutIntent(id: $id, reason: "x") { id } }', { id: po.id }));
    expect(c.body.errors?.[0]?.extensions?.code).toBe('approval_required');
    const v = track(
      await m.gql(
        'mutation($i: CreateTopupIntentInput!) { createTopupIntent(input: $i) { id } }',
        { i: { amount: '1.5', currency: 'THB', country: 'TH', merchantReference: ref('g') } },
        { 'idempotency-key': idem() },
      ),
    );
    expect(v.body.errors?.[0]?.extensions?.code).toBe('validation_error');
    // Single-record queries: null plus the not_found error, alike for unknown, foreign and other-environment ids.
    const mine = await payout();
    const liveOne = await post(live, '/v1/payout_intents', payoutBody());
    const seenErrors = new Set<string>();
    for (const [field, id] of [
      ['payoutIntent', mine.id],
      ['payoutIntent', 'po_missing'],
      ['paymentIntent', 'pi_missing'],
      ['topupIntent', 'tu_missing'],
      ['event', 'evt_missing'],
    ] as const) {
      const c = field === 'payoutIntent' && id === mine.id ? other : m;
      const r = track(await c.gql(`query($id: ID!) { ${field}(id: $id) { id } }`, { id }));
      expect(r.body.data).toEqual({ [field]: null });
      expect(r.body.errors?.[0]?.extensions?.code).toBe('not_found');
      if (field === 'payoutIntent') seenErrors.add(r.body.errors[0].message);
    }
    if (liveOne.status === 201) {
      const r = track(await m.gql('query($id: ID!) { payoutIntent(id: $id) { id } }', { id: liveOne.body.id }));
      expect(r.body.errors?.[0]?.extensions?.code).toBe('not_found');
      seenErrors.add(r.body.errors[0].message);
    }
    expect(seenErrors.size).toBe(1);
    const unauth = track(await srv.client().gql('{ balances { currency } }'));
    expect(unauth.body.errors?.[0]?.extensions?.code).toBe('unauthorized');
  });
});

describe('Amount rules', () => {
  test.each([
    ['a number', 100],
    ['a sign +', '+100'],
    ['a sign -', '-100'],
    ['a decimal point', '100.0'],
    ['zero', '0'],
    ['all zeros', '000'],
    ['exponent', '1e3'],
    ['spaces', ' 100'],
    ['empty', ''],
    ['non-ASCII digits', '\u0661\u0660\u0660'],
    ['fullwidth digits', '\uff11\uff10\uff10'],
    ['31 digits', '1' + '0'.repeat(30)],
  ])('amount as %s is 400 validation_error param amount', async (_label, amount) => {
    expectError(await post(m, '/v1/topup_intents', topupBody({ amount }), { idempotencyKey: idem() }), 400, 'validation_error', 'amount');
    expectError(await post(m, '/v1/payout_intents', payoutBody({ amount })), 400, 'validation_error', 'amount');
    expectError(await post(m, '/v1/payment_intents', paymentBody({ amount })), 400, 'validation_error', 'amount');
  });

  test('30 digits is within the amount syntax (not a validation error of syntax); leading zeros are normalised', async () => {
    const res = await post(m, '/v1/topup_intents', topupBody({ amount: '9'.repeat(30) }), { idempotencyKey: idem() });
    expect(res.status).not.toBe(500);
    if (res.status === 201) expect(res.body.amount).toBe('9'.repeat(30));
    const lead = await post(m, '/v1/topup_intents', topupBody({ amount: '0001000' }), { idempotencyKey: idem() });
    expect(lead.status).toBe(201);
    expect(lead.body.amount).toBe('1000');
    const po = await post(m, '/v1/payout_intents', payoutBody({ amount: '000500' }));
    expect(po.body.amount).toBe('500');
  });

  test('a 30-digit amount with leading zeros is normalised (length counted how the contract says)', async () => {
    const res = await post(m, '/v1/payout_intents', payoutBody({ amount: '0'.repeat(26) + '1000' }));
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe('1000');
  });

  test('payment fingerprint uses normalised values and filled defaults: same request written differently replays (200)', async () => {
    const b = paymentBody({ amount: '50000' });
    const first = await post(m, '/v1/payment_intents', b);
    expect(first.status).toBe(201);
    const same = await post(m, '/v1/payment_intents', { ...b, amount: '0050000', checkout_mode: 'direct' });
    expect(same.status).toBe(200);
    expect(same.body.id).toBe(first.body.id);
  });

  test('amounts are never rounded through a JavaScript number (30 digits round-trip exactly)', async () => {
    const amount = '123456789012345678901234567891';
    const res = await post(m, '/v1/topup_intents', topupBody({ amount }), { idempotencyKey: idem() });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe(amount);
    expect((await get(m, `/v1/topup_intents/${res.body.id}`)).body.amount).toBe(amount);
  });
});

describe('Listing query parameters', () => {
  let lister: Client;
  let created: any[] = [];
  beforeAll(async () => {
    lister = await srv.merchant(undefined, 'test', { fund: false });
    for (let i = 0; i < 27; i++) created.push(await topup(lister, { merchant_reference: `list-${i}` }));
    created = created.reverse();
  }, 60000);

  test('default page size 25, has_more and next_cursor; last page has_more false and next_cursor null', async () => {
    const p1 = await get(lister, '/v1/topup_intents');
    expect(p1.status).toBe(200);
    expect(p1.body.data).toHaveLength(25);
    expect(p1.body.has_more).toBe(true);
    expect(typeof p1.body.next_cursor).toBe('string');
    const p2 = await get(lister, `/v1/topup_intents?cursor=${encodeURIComponent(p1.body.next_cursor)}`);
    expect(p2.body.data).toHaveLength(2);
    expect(p2.body.has_more).toBe(false);
    expect(p2.body.next_cursor).toBeNull();
    expect([...p1.body.data, ...p2.body.data].map((t: any) => t.id)).toEqual(created.map((t) => t.id));
  });

  test('limit 1 and 100 accepted; 0, 101, abc, 1.5 are 400', async () => {
    expect((await get(lister, '/v1/topup_intents?limit=1')).body.data).toHaveLength(1);
    expect((await get(lister, '/v1/topup_intents?limit=100')).body.data).toHaveLength(27);
    for (const v of ['0', '101', 'abc', '1.5', '-1', '']) expectError(await get(lister, `/v1/topup_intents?limit=${v}`), 400, 'validation_error', 'limit');
  });

  test('a page exactly filling the limit at the end has has_more false', async () => {
    const res = await get(lister, '/v1/topup_intents?limit=27');
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
  });

  test('status: one state or a comma list', async () => {
    await post(lister, `/v1/test_helpers/topup_intents/${created[0].id}/succeed`, {});
    await post(lister, `/v1/test_helpers/topup_intents/${created[1].id}/fail`, {});
    const one = await get(lister, '/v1/topup_intents?status=succeeded');
    expect(one.body.data.map((t: any) => t.id)).toEqual([created[0].id]);
    const two = await get(lister, '/v1/topup_intents?status=succeeded,failed');
    expect(two.body.data.map((t: any) => t.id).sort()).toEqual([created[0].id, created[1].id].sort());
    expectError(await get(lister, '/v1/topup_intents?status=bogus'), 400, 'validation_error', 'status');
  });

  test('country, currency, merchant_reference filters', async () => {
    expect((await get(lister, '/v1/topup_intents?country=TH&currency=THB&limit=100')).body.data).toHaveLength(27);
    expect((await get(lister, '/v1/topup_intents?country=ID')).body.data).toHaveLength(0);
    expect((await get(lister, '/v1/topup_intents?merchant_reference=list-3')).body.data.map((t: any) => t.merchant_reference)).toEqual(['list-3']);
    expectError(await get(lister, '/v1/topup_intents?country=THA'), 400, 'validation_error', 'country');
    expectError(await get(lister, '/v1/topup_intents?currency=TB'), 400, 'validation_error', 'currency');
    expectError(await get(lister, `/v1/topup_intents?merchant_reference=${'x'.repeat(257)}`), 400, 'validation_error', 'merchant_reference');
    expectError(await get(lister, '/v1/topup_intents?merchant_reference='), 400, 'validation_error', 'merchant_reference');
    expect((await get(lister, `/v1/topup_intents?merchant_reference=${'x'.repeat(256)}`)).status).toBe(200);
  });

  test('created_gte inclusive, created_lt exclusive; offsets accepted; no offset is 400', async () => {
    const t = await topup(lister, { merchant_reference: 'list-time' });
    const at = t.created_at as string;
    const gte = await get(lister, `/v1/topup_intents?created_gte=${encodeURIComponent(at)}`);
    expect(gte.body.data.map((x: any) => x.id)).toContain(t.id);
    const lt = await get(lister, `/v1/topup_intents?created_lt=${encodeURIComponent(at)}&limit=100`);
    expect(lt.body.data.map((x: any) => x.id)).not.toContain(t.id);
    const lt2 = await get(lister, `/v1/topup_intents?created_lt=${encodeURIComponent(new Date(Date.parse(at) + 1).toISOString())}&limit=100`);
    expect(lt2.body.data.map((x: any) => x.id)).toContain(t.id);
    // same instant written with a +07:00 offset
    const d = new Date(Date.parse(at) + 7 * 3600 * 1000).toISOString().replace('Z', '+07:00');
    const off = await get(lister, `/v1/topup_intents?created_gte=${encodeURIComponent(d)}`);
    expect(off.status).toBe(200);
    expect(off.body.data.map((x: any) => x.id)).toContain(t.id);
    expectError(await get(lister, '/v1/topup_intents?created_gte=2026-01-01T00:00:00'), 400, 'validation_error', 'created_gte');
    expectError(await get(lister, '/v1/topup_intents?created_lt=yesterday'), 400, 'validation_error', 'created_lt');
  });

  test('unknown query parameter is 400', async () => {
    expectError(await get(lister, '/v1/topup_intents?colour=red'), 400, 'validation_error', 'colour');
    expectError(await get(lister, '/v1/payment_intents?page=2'), 400, 'validation_error', 'page');
    expectError(await get(lister, '/v1/payout_intents?offset=2'), 400, 'validation_error', 'offset');
  });

  test('cursor from another merchant, environment or resource, or malformed, is 400', async () => {
    const cursor = (await get(lister, '/v1/topup_intents?limit=1')).body.next_cursor;
    expectError(await get(other, `/v1/topup_intents?cursor=${encodeURIComponent(cursor)}`), 400, 'validation_error', 'cursor');
    const liveKey = await srv.keyFor(lister.merchantId, 'live');
    expectError(await get(liveKey, `/v1/topup_intents?cursor=${encodeURIComponent(cursor)}`), 400, 'validation_error', 'cursor');
    expectError(await get(lister, `/v1/payout_intents?cursor=${encodeURIComponent(cursor)}`), 400, 'validation_error', 'cursor');
    expectError(await get(lister, `/v1/payment_intents?cursor=${encodeURIComponent(cursor)}`), 400, 'validation_error', 'cursor');
    expectError(await get(lister, '/v1/topup_intents?cursor=garbage'), 400, 'validation_error', 'cursor');
    expectError(await get(lister, '/v1/topup_intents?cursor='), 400, 'validation_error', 'cursor');
  });

  test('the same rules on payment and payout lists', async () => {
    for (const r of ['payment_intents', 'payout_intents']) {
      const res = await get(
        m,
        `/v1/${r}?limit=1&status=${r === 'payout_intents' ? 'requires_approval,processing' : 'requires_action,succeeded'}&country=TH&currency=THB&created_gte=2020-01-01T00:00:00Z&created_lt=2100-01-01T00:00:00%2B07:00`,
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      const next = await get(m, `/v1/${r}?limit=1&cursor=${encodeURIComponent(res.body.next_cursor)}&country=TH`);
      expect(next.status).toBe(200);
      expectError(await get(m, `/v1/${r}?limit=101`), 400, 'validation_error', 'limit');
    }
  });
});

describe('Idempotency-Key', () => {
  test('replay: same status and body byte for byte, Idempotent-Replayed: true', async () => {
    const key = idem();
    const body = payoutBody();
    const a = await post(m, '/v1/payout_intents', body, { idempotencyKey: key });
    const b = await post(m, '/v1/payout_intents', body, { idempotencyKey: key });
    expect(b.status).toBe(a.status);
    expect(b.text).toBe(a.text);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expectError(await post(m, '/v1/payout_intents', { ...body, amount: '2' }, { idempotencyKey: key }), 409, 'idempotency_conflict');
  });

  test('the fingerprint is of the route and the canonical body: key order does not matter, another route conflicts', async () => {
    const key = idem();
    const body = payoutBody();
    const a = await post(m, '/v1/payout_intents', body, { idempotencyKey: key });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const b = await post(m, '/v1/payout_intents', reordered, { idempotencyKey: key });
    expect([b.status, b.text, b.headers.get('idempotent-replayed')]).toEqual([a.status, a.text, 'true']);
    expectError(await post(m, '/v1/topup_intents', topupBody(), { idempotencyKey: key }), 409, 'idempotency_conflict');
  });

  test('a 4xx is stored and replayed', async () => {
    const key = idem();
    const body = payoutBody({ amount: 'x' });
    const a = await post(m, '/v1/payout_intents', body, { idempotencyKey: key });
    expect(a.status).toBe(400);
    const b = await post(m, '/v1/payout_intents', body, { idempotencyKey: key });
    expect(b.text).toBe(a.text);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
  });

  test('scope is (API key, key): the same string under another API key does not collide', async () => {
    const key = idem();
    const a = await post(m, '/v1/payout_intents', payoutBody(), { idempotencyKey: key });
    const second = await srv.keyFor(m.merchantId, 'test');
    const b = await post(second, '/v1/payout_intents', payoutBody(), { idempotencyKey: key });
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
  });

  test('255 printable ASCII characters are accepted; 256 is 400 param Idempotency-Key', async () => {
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
    const k255 = ('A' + printable + printable + printable).slice(0, 254) + 'Z';
    expect(k255).toHaveLength(255);
    expect((await post(m, '/v1/payout_intents', payoutBody(), { idempotencyKey: k255 })).status).toBe(201);
    expectError(await post(m, '/v1/payout_intents', payoutBody(), { idempotencyKey: 'k'.repeat(256) }), 400, 'validation_error', 'Idempotency-Key');
  });

  test('a non-printable character is 400 param Idempotency-Key', async () => {
    expectError(await post(m, '/v1/payout_intents', payoutBody(), { idempotencyKey: 'a\tb' }), 400, 'validation_error', 'Idempotency-Key');
    expectError(await post(m, '/v1/payout_intents', payoutBody(), { idempotencyKey: 'caf\u00e9' }), 400, 'validation_error', 'Idempotency-Key');
  });

  test('GraphQL mutations honour the same header', async () => {
    const key = idem();
    const q = 'mutation($i: CreatePayoutIntentInput!) { createPayoutIntent(input: $i) { id } }';
    const input = {
      amount: '100',
      currency: 'THB',
      country: 'TH',
      merchantReference: ref('gq'),
      recipient: { type: 'BANK_ACCOUNT', bankCode: 'KBANK', accountNumber: '1234567890', holderName: 'A B' },
    };
    const a = track(await m.gql(q, { i: input }, { 'idempotency-key': key }));
    expect(a.body.errors).toBeUndefined();
    const b = track(await m.gql(q, { i: input }, { 'idempotency-key': key }));
    expect(b.body.data).toEqual(a.body.data);
    // The same key on another operation is a conflict, not a replay.
    const other = track(
      await m.gql(
        'mutation($i: CreateTopupIntentInput!) { createTopupIntent(input: $i) { id } }',
        { i: { amount: '100', currency: 'THB', country: 'TH', merchantReference: ref('gt') } },
        { 'idempotency-key': key },
      ),
    );
    expect(other.body.errors?.[0]?.extensions?.code).toBe('idempotency_conflict');
    // And the REST route of the same operation with the same key replays the stored result.
    const rest = await post(
      m,
      '/v1/payout_intents',
      {
        amount: '100',
        currency: 'THB',
        country: 'TH',
        merchant_reference: input.merchantReference,
        recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'A B' },
      },
      { idempotencyKey: key },
    );
    expect([rest.status, rest.body.id, rest.headers.get('idempotent-replayed')]).toEqual([201, a.body.data.createPayoutIntent.id, 'true']);
  });
});

describe('GraphQL surface', () => {
  let schema: any;
  beforeAll(async () => {
    const res = await m.gql(`{ __schema {
      queryType { fields { name args { name } } }
      mutationType { fields { name args { name } } }
      subscriptionType { fields { name args { name type { kind name ofType { kind name ofType { kind name ofType { name } } } } } } }
      types { kind name enumValues { name } fields { name } }
    } }`);
    schema = res.body.data.__schema;
  });
  const names = (t: any) => t.fields.map((f: any) => f.name);

  test('Query names', () => {
    for (const q of [
      'viewer',
      'paymentIntent',
      'paymentIntents',
      'payoutIntent',
      'payoutIntents',
      'topupIntent',
      'topupIntents',
      'balances',
      'paymentMethodOptions',
      'events',
    ])
      expect(names(schema.queryType)).toContain(q);
    for (const q of ['paymentIntent', 'payoutIntent', 'topupIntent'])
      expect(schema.queryType.fields.find((f: any) => f.name === q).args.map((a: any) => a.name)).toContain('id');
  });

  test('Mutation names; cancelPayoutIntent(id, reason)', () => {
    for (const q of [
      'createPaymentIntent',
      'cancelPaymentIntent',
      'createPayoutIntent',
      'approvePayoutIntent',
      'cancelPayoutIntent',
      'createTopupIntent',
      'createWebhookEndpoint',
      'deleteWebhookEndpoint',
    ])
      expect(names(schema.mutationType)).toContain(q);
    const cancel = schema.mutationType.fields.find((f: any) => f.name === 'cancelPayoutIntent');
    expect(cancel.args.map((a: any) => a.name).sort()).toEqual(['id', 'reason']);
  });

  test('Subscription events(types, after)', () => {
    const ev = schema.subscriptionType.fields.find((f: any) => f.name === 'events');
    expect(ev.args.map((a: any) => a.name).sort()).toEqual(['after', 'types']);
  });

  test('lists are Relay connections with first/after/filter', async () => {
    for (const q of ['paymentIntents', 'payoutIntents', 'topupIntents', 'events']) {
      const f = schema.queryType.fields.find((x: any) => x.name === q);
      const args = f.args.map((a: any) => a.name);
      expect(args).toEqual(expect.arrayContaining(['first', 'after']));
      if (q !== 'events') expect(args).toContain('filter');
    }
    const res = track(
      await m.gql(
        '{ payoutIntents(first: 1, filter: { status: [REQUIRES_APPROVAL] }) { edges { cursor node { id status amount } } nodes { id } pageInfo { hasNextPage endCursor } } }',
      ),
    );
    expect(res.body.errors).toBeUndefined();
    const conn = res.body.data.payoutIntents;
    expect(conn.edges).toHaveLength(1);
    expect(conn.nodes[0].id).toBe(conn.edges[0].node.id);
    expect(conn.edges[0].node.status).toBe('REQUIRES_APPROVAL');
    expect(typeof conn.edges[0].node.amount).toBe('string');
    expect(conn.pageInfo.hasNextPage).toBe(true);
    const next = track(await m.gql('query($a: String) { payoutIntents(first: 1, after: $a) { nodes { id } } }', { a: conn.pageInfo.endCursor }));
    expect(next.body.errors).toBeUndefined();
  });

  test('enum values are UPPER_CASE', () => {
    const enums = schema.types.filter((t: any) => t.kind === 'ENUM' && !t.name.startsWith('__'));
    expect(enums.length).toBeGreaterThan(0);
    for (const e of enums) for (const v of e.enumValues) expect(`${e.name}.${v.name}`).toMatch(/\.[A-Z][A-Z0-9_]*$/);
  });

  test('fields are camelCase', () => {
    for (const t of schema.types.filter((x: any) => x.kind === 'OBJECT' && !x.name.startsWith('__'))) {
      for (const f of t.fields ?? []) expect(`${t.name}.${f.name}`).toMatch(/\.[a-z][A-Za-z0-9]*$/);
    }
  });

  test('the events query and subscription accept an event id as after', async () => {
    const all = (await get(m, '/v1/events?limit=3')).body.data;
    const res = track(await m.gql('query($a: String) { events(first: 2, after: $a) { nodes { id type } } }', { a: all[0].id }));
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.events.nodes.map((n: any) => n.id)).toEqual(all.slice(1, 3).map((e: any) => e.id));
  });
});

describe('Provisioning CLI', () => {
  test('keys create prints {merchant_id, public_key, secret_key} and the key works', async () => {
    const { code, stdout } = await runCli(srv.database, ['keys', 'create', '--merchant', `acme-${Date.now()}`, '--env', 'test']);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(Object.keys(out).sort()).toEqual(['merchant_id', 'public_key', 'secret_key']);
    expect(out.public_key).toMatch(/^pk_test_/);
    expect(out.secret_key).toMatch(/^sk_test_/);
    const c = srv.client(`${out.public_key}:${out.secret_key}`);
    expect((await get(c, '/v1/balances')).status).toBe(200);
  }, 30000);

  test('the documented form `npm run --silent cli -- keys create --merchant acme --env test` prints only that JSON', async () => {
    const env = { ...process.env, ...srv.database.env, LOG_LEVEL: 'silent', SEED_DEMO: '0', DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
    const root = path.resolve(__dirname, '../../..');
    const { stdout } = await run('npm', ['run', '--silent', 'cli', '--', 'keys', 'create', '--merchant', 'acme', '--env', 'test'], {
      env,
      cwd: root,
    });
    const out = JSON.parse(stdout);
    expect(Object.keys(out).sort()).toEqual(['merchant_id', 'public_key', 'secret_key']);
    expect((await get(srv.client(`${out.public_key}:${out.secret_key}`), '/v1/balances')).status).toBe(200);
  }, 60000);
});

describe('Request-Id', () => {
  test('every response of this file carried a Request-Id header', () => {
    expect(seen.length).toBeGreaterThan(100);
    const missing = seen.filter((r) => !r.headers.get('request-id')).map((r) => `${r.status} ${r.text.slice(0, 80)}`);
    expect(missing).toEqual([]);
  });
});

// keep helpers referenced
void eventually;
