/**
 * Payment intents: every next_action type the catalogue produces, every
 * lifecycle transition on REST and GraphQL, test helpers, cancel rules, expiry by the
 * scheduler, the simulated providers' own settlement, balances and events per transition.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, ref } from '../helpers/client';
import { createPayment, directDebit, is, paymentBody, waitForStatus } from '../helpers/fixtures';
import { crc16ccitt, parseTlv } from '../../src/modules/methods/emvco';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MINUTE = 60_000;

const TRANSFER = {
  payment_method: 'bank_transfer',
  payment_method_options: { account_name: 'Somchai Jaidee', account_number: '1234567890', bank: 'KBANK' },
};
const DEBIT = directDebit;

const create = (c: Client, overrides: Record<string, unknown> = {}) => createPayment(c, paymentBody(overrides));

async function balance(c: Client, currency = 'THB'): Promise<{ available: string; pending: string }> {
  const res = await c.get('/v1/balances');
  const b = res.body.data.find((x: any) => x.currency === currency);
  return { available: b?.available ?? '0', pending: b?.pending ?? '0' };
}

/** Event types recorded for one intent, oldest first; each event carries the record as REST returns it. */
async function eventsOf(c: Client, id: string): Promise<string[]> {
  const res = await c.get('/v1/events?limit=100');
  expect(res.status).toBe(200);
  const mine = res.body.data.filter((e: any) => e.data.object.id === id).reverse();
  for (const e of mine) {
    expect(e).toMatchObject({ object: 'event', environment: c.key!.environment });
    expect(e.data.object.object).toBe('payment_intent');
    expect(e.type === 'payment_intent.created' ? 'requires_action' : e.type.replace('payment_intent.', '')).toBe(e.data.object.status);
  }
  return mine.map((e: any) => e.type);
}

function expectWithin(iso: string, fromMs: number, ttlMs: number): void {
  expect(iso).toMatch(ISO_MS);
  const t = Date.parse(iso);
  expect(t).toBeGreaterThanOrEqual(fromMs + ttlMs - 1000);
  expect(t).toBeLessThanOrEqual(Date.now() + ttlMs + 1000);
}

describe('record shape', () => {
  test('every contract field, in a fresh create', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(c, { payment_method: 'promptpay', metadata: { a: '1' } });
    expect(Object.keys(p).sort()).toEqual([
      'amount',
      'amount_refunded',
      'checkout_mode',
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
      'payment_link',
      'payment_method',
      'processing_reason',
      'receipt',
      'status',
      'updated_at',
    ]);
    expect(p).toMatchObject({
      object: 'payment_intent',
      payment_link: null,
      amount: '50000',
      currency: 'THB',
      country: 'TH',
      environment: 'test',
      checkout_mode: 'direct',
      status: 'requires_action',
      payment_method: 'promptpay',
      failure_code: null,
      failure_message: null,
      processing_reason: null,
      receipt: null,
      amount_refunded: '0',
    });
    expect(p.id).toMatch(/^pi_[0-9a-z]{26}$/);
    expect(p.created_at).toMatch(ISO_MS);
    expect(p.updated_at).toBe(p.created_at);
    // payer data never comes back
    expect(JSON.stringify(p)).not.toContain('Somchai');
  });
});

describe('next_action types', () => {
  let c: Client;
  beforeAll(async () => {
    c = await srv.merchant(undefined, 'test', { fund: false });
  });

  test('promptpay: display_qr_code with a valid EMVCo payload, an SVG image and expires_at (15 min)', async () => {
    const before = Date.now();
    const p = await create(c, { amount: '50025', payment_method: 'promptpay' });
    expect(p.status).toBe('requires_action');
    const na = p.next_action;
    expect(Object.keys(na).sort()).toEqual(['display_qr_code', 'expires_at', 'type']);
    expect(na.type).toBe('display_qr_code');
    expectWithin(na.expires_at, before, 15 * MINUTE);
    const { data, image_url_svg } = na.display_qr_code;
    expect(image_url_svg).toMatch(/^data:image\/svg\+xml/);
    // EMVCo TLV: payload format 01, dynamic (12), THB (764), TH, amount in major units, CRC over everything before it.
    const fields = parseTlv(data);
    expect(fields.get('00')).toBe('01');
    expect(fields.get('01')).toBe('12');
    expect(fields.get('53')).toBe('764');
    expect(fields.get('54')).toBe('500.25');
    expect(fields.get('58')).toBe('TH');
    expect(fields.get('30')).toContain('A000000677010112');
    expect(data.slice(-8, -4)).toBe('6304');
    expect(data.slice(-4)).toBe(crc16ccitt(data.slice(0, -4)));
  });

  test('bank_transfer: display_bank_transfer_instructions with bank, account, reference, amount and expiry (24 h)', async () => {
    const before = Date.now();
    const p = await create(c, TRANSFER);
    expect(p.payment_method).toBe('bank_transfer');
    expect(p.next_action.type).toBe('display_bank_transfer_instructions');
    expectWithin(p.next_action.expires_at, before, 24 * 60 * MINUTE);
    expect(p.next_action.display_bank_transfer_instructions).toEqual({
      bank: 'KBANK',
      bank_name: 'Kasikornbank',
      account_number: '0481234567',
      account_name: 'Payments Gateway Client Funds',
      reference: expect.stringMatching(/^PI[0-9A-Z]{16}$/),
      amount: '50000',
      currency: 'THB',
    });
  });

  test('bank_transfer (IDR): a virtual account per intent', async () => {
    const p = await create(c, {
      amount: '5000000',
      currency: 'IDR',
      country: 'ID',
      customer: { name: 'Budi', phone: '+628123456789' },
      payment_method: 'bank_transfer',
      payment_method_options: { bank: 'BCA' },
    });
    const t = p.next_action.display_bank_transfer_instructions;
    expect(t).toMatchObject({ bank: 'BCA', bank_name: 'Bank Central Asia', amount: '5000000', currency: 'IDR' });
    expect(t.account_number).toMatch(/^39358\d{11}$/);
  });

  test('online_banking: redirect_to_url to the bank approval page under /checkout/:token (30 min)', async () => {
    const before = Date.now();
    const p = await create(c, { payment_method: 'online_banking', payment_method_options: { bank: 'SCB' } });
    expect(p.next_action).toEqual({
      type: 'redirect_to_url',
      url: expect.stringMatching(new RegExp(`^${srv.url}/checkout/[A-Za-z0-9_-]{43}/authorize$`)),
      expires_at: expect.any(String),
    });
    expectWithin(p.next_action.expires_at, before, 30 * MINUTE);
    const page = await fetch(p.next_action.url);
    expect(page.status).toBe(200);
  });

  test('hosted checkout: redirect_to_url to /checkout/:token with expires_at (1 h), no method yet', async () => {
    const before = Date.now();
    const p = await create(c, { checkout_mode: 'hosted', return_url: 'https://shop.example/done' });
    expect(p).toMatchObject({ checkout_mode: 'hosted', status: 'requires_action', payment_method: null });
    expect(p.next_action).toEqual({
      type: 'redirect_to_url',
      url: expect.stringMatching(new RegExp(`^${srv.url}/checkout/[A-Za-z0-9_-]{43}$`)),
      expires_at: expect.any(String),
    });
    expectWithin(p.next_action.expires_at, before, 60 * MINUTE);
    const page = await fetch(p.next_action.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  test("hosted checkout: the payer picks a method; the intent then carries that method's next_action", async () => {
    const p = await create(c, { checkout_mode: 'hosted' });
    const picked = await fetch(p.next_action.url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'payment_method=promptpay',
    });
    expect(picked.status).toBe(303);
    const after = (await c.get(`/v1/payment_intents/${p.id}`)).body;
    expect(after).toMatchObject({ status: 'requires_action', payment_method: 'promptpay', checkout_mode: 'hosted' });
    expect(after.next_action.type).toBe('display_qr_code');
    expect(await eventsOf(c, p.id)).toEqual(['payment_intent.created', 'payment_intent.requires_action']);
  });

  test('direct_debit: no next_action, succeeds at once with a receipt, credits the balance', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, DEBIT());
    expect(p).toMatchObject({
      status: 'succeeded',
      payment_method: 'direct_debit',
      next_action: null,
      processing_reason: null,
      failure_code: null,
    });
    expect(p.receipt).toEqual({
      receipt_number: expect.stringMatching(/^RCPT-\d{8}-[0-9A-Z]{10}$/),
      amount: '5000',
      currency: 'THB',
      payment_method: 'direct_debit',
      bank: 'KBANK',
      reference: expect.stringMatching(/^PI[0-9A-Z]{16}$/),
      paid_at: expect.stringMatching(ISO_MS),
    });
    expect(await balance(m)).toEqual({ available: '5000', pending: '0' });
    expect(await eventsOf(m, p.id)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
  });

  test('direct_debit magic account: held in processing (risk_review), then settled by the helper', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, DEBIT('0000000010'));
    expect(p).toMatchObject({ status: 'processing', next_action: null, processing_reason: 'risk_review', receipt: null });
    expect(await balance(m)).toEqual({ available: '0', pending: '5000' });
    const done = await m.post(`/v1/test_helpers/payment_intents/${p.id}/succeed`, {});
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'succeeded', processing_reason: null });
    expect(done.body.receipt.amount).toBe('5000');
    expect(await balance(m)).toEqual({ available: '5000', pending: '0' });
    expect(await eventsOf(m, p.id)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']);
  });
});

describe('transitions (REST)', () => {
  test('requires_action -> processing -> succeeded via the bank approval page; pending then available', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, { payment_method: 'online_banking', payment_method_options: { bank: 'KTB' } });
    const approve = await fetch(p.next_action.url, { method: 'POST', redirect: 'manual' });
    expect(approve.status).toBe(303);
    const processing = (await m.get(`/v1/payment_intents/${p.id}`)).body;
    expect(processing).toMatchObject({
      status: 'processing',
      next_action: null,
      processing_reason: 'provider_confirmation',
      receipt: null,
    });
    expect(await balance(m)).toEqual({ available: '0', pending: '50000' });
    const ok = await m.post(`/v1/test_helpers/payment_intents/${p.id}/succeed`, {});
    expect(ok.body).toMatchObject({ status: 'succeeded', processing_reason: null, next_action: null });
    expect(await balance(m)).toEqual({ available: '50000', pending: '0' });
    expect(await eventsOf(m, p.id)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']);
  });

  test('test helper succeed from requires_action passes through processing; balance credited', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, { payment_method: 'promptpay' });
    const res = await m.post(`/v1/test_helpers/payment_intents/${p.id}/succeed`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: p.id, status: 'succeeded', next_action: null, failure_code: null });
    expect(res.body.receipt).toMatchObject({ amount: '50000', currency: 'THB', payment_method: 'promptpay', bank: null });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(p.updated_at));
    expect(await balance(m)).toEqual({ available: '50000', pending: '0' });
    expect(await eventsOf(m, p.id)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']);
  });

  test('test helper fail: default and explicit failure codes; nothing credited', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, TRANSFER);
    const res = await m.post(`/v1/test_helpers/payment_intents/${p.id}/fail`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'failed',
      failure_code: 'payment_declined',
      next_action: null,
      receipt: null,
      processing_reason: null,
    });
    expect(res.body.failure_message).toEqual(expect.any(String));
    const q = await create(m, { payment_method: 'promptpay' });
    const custom = await m.post(`/v1/test_helpers/payment_intents/${q.id}/fail`, {
      failure_code: 'amount_mismatch',
      failure_message: 'Paid 1 baht short.',
    });
    expect(custom.body).toMatchObject({ status: 'failed', failure_code: 'amount_mismatch', failure_message: 'Paid 1 baht short.' });
    expect((await m.post(`/v1/test_helpers/payment_intents/${q.id}/fail`, { failure_code: 'Bad Code' })).status).toBe(400);
    expect(await balance(m)).toEqual({ available: '0', pending: '0' });
    expect(await eventsOf(m, p.id)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.failed']);
  });

  test('processing -> failed releases pending', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, DEBIT('0000000028'));
    expect(p.status).toBe('processing');
    expect(await balance(m)).toEqual({ available: '0', pending: '5000' });
    const res = await m.post(`/v1/test_helpers/payment_intents/${p.id}/fail`, { failure_code: 'insufficient_funds' });
    expect(res.body).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
    expect(await balance(m)).toEqual({ available: '0', pending: '0' });
  });

  test('cancel: only from requires_action; default and given reason; 422 invalid_state otherwise', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, { payment_method: 'promptpay' });
    const res = await m.post(`/v1/payment_intents/${p.id}/cancel`, { reason: 'Customer changed their mind' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: p.id,
      status: 'cancelled',
      failure_code: 'cancelled',
      failure_message: 'Customer changed their mind',
      next_action: null,
    });
    expect(await eventsOf(m, p.id)).toEqual(['payment_intent.created', 'payment_intent.cancelled']);
    const again = await m.post(`/v1/payment_intents/${p.id}/cancel`, {});
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('invalid_state');
    expect(again.body.error.message).toContain('cancelled');

    const q = await create(m, { checkout_mode: 'hosted' });
    const dflt = await m.post(`/v1/payment_intents/${q.id}/cancel`);
    expect(dflt.status).toBe(200);
    expect(dflt.body.failure_message).toEqual(expect.stringMatching(/^Cancelled/));

    const succeeded = await create(m, DEBIT());
    const processing = await create(m, DEBIT('0000000010'));
    for (const id of [succeeded.id, processing.id]) {
      const r = await m.post(`/v1/payment_intents/${id}/cancel`, {});
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('invalid_state');
    }
    const tooLong = await m.post(`/v1/payment_intents/${processing.id}/cancel`, { reason: 'x'.repeat(513) });
    expect(tooLong.body.error).toMatchObject({ code: 'validation_error', param: 'reason' });
    const unknown = await m.post(`/v1/payment_intents/${processing.id}/cancel`, { note: 'x' });
    expect(unknown.body.error).toMatchObject({ code: 'validation_error', param: 'note' });
    expect((await m.get(`/v1/payment_intents/${processing.id}`)).body.status).toBe('processing');
  });

  test('cancel with an Idempotency-Key replays; a different body is a 409', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, { payment_method: 'promptpay' });
    const first = await m.post(`/v1/payment_intents/${p.id}/cancel`, { reason: 'r' }, { idempotencyKey: 'cancel-1' });
    const again = await m.post(`/v1/payment_intents/${p.id}/cancel`, { reason: 'r' }, { idempotencyKey: 'cancel-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect((await m.post(`/v1/payment_intents/${p.id}/cancel`, { reason: 's' }, { idempotencyKey: 'cancel-1' })).body.error.code).toBe('idempotency_conflict');
  });

  test('test helper expire: requires_action -> expired; otherwise 422 invalid_state', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, TRANSFER);
    const res = await m.post(`/v1/test_helpers/payment_intents/${p.id}/expire`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'expired', failure_code: 'expired', next_action: null });
    expect(await eventsOf(m, p.id)).toEqual(['payment_intent.created', 'payment_intent.expired']);
    for (const action of ['expire', 'succeed', 'fail']) {
      const r = await m.post(`/v1/test_helpers/payment_intents/${p.id}/${action}`, {});
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('invalid_state');
    }
    const processing = await create(m, DEBIT('0000000010'));
    expect((await m.post(`/v1/test_helpers/payment_intents/${processing.id}/expire`, {})).body.error.code).toBe('invalid_state');
    expect((await m.post(`/v1/payment_intents/${p.id}/cancel`, {})).body.error.code).toBe('invalid_state');
    expect(await balance(m)).toEqual({ available: '0', pending: '5000' });
  });

  test('test helper on a hosted intent the payer never chose: the first eligible method is used', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, { checkout_mode: 'hosted' });
    const res = await m.post(`/v1/test_helpers/payment_intents/${p.id}/succeed`, {});
    expect(res.body).toMatchObject({ status: 'succeeded', payment_method: 'promptpay' });
    expect(await balance(m)).toEqual({ available: '50000', pending: '0' });
  });

  test('test helpers do not exist for live keys (404 not_found), and live intents work otherwise', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const live = await srv.keyFor(m.merchantId, 'live');
    const p = await create(live, { payment_method: 'promptpay' });
    expect(p.environment).toBe('live');
    for (const action of ['succeed', 'fail', 'expire']) {
      const r = await live.post(`/v1/test_helpers/payment_intents/${p.id}/${action}`, {});
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect((await live.get(`/v1/payment_intents/${p.id}`)).body.status).toBe('requires_action');
    expect((await live.post(`/v1/payment_intents/${p.id}/cancel`, {})).body.status).toBe('cancelled');
  });

  test('an intent past expires_at expires on its own (scheduler), with its event', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const p = await create(m, { payment_method: 'promptpay' });
    const h = await create(m, { checkout_mode: 'hosted' });
    const keep = await create(m, { payment_method: 'promptpay' });
    await srv.app.db.ds.query('UPDATE payment_intents SET expires_at = ? WHERE id IN (?, ?)', [Date.now() - 1000, p.id, h.id]);
    for (const id of [p.id, h.id]) {
      const expired = await waitForStatus(m, `/v1/payment_intents/${id}`, is('expired'));
      expect(expired).toMatchObject({ failure_code: 'expired', next_action: null });
      expect(await eventsOf(m, id)).toEqual(['payment_intent.created', 'payment_intent.expired']);
    }
    expect((await m.get(`/v1/payment_intents/${keep.id}`)).body.status).toBe('requires_action');
  });
});

describe('simulated providers settle on their own (SIMULATED_SETTLE_MS)', () => {
  let timed: TestServer;
  beforeAll(async () => {
    timed = await startServer({ env: { SIMULATED_SETTLE_MS: '150' } });
  });
  afterAll(async () => {
    await timed.close();
  });

  test('promptpay: requires_action -> processing -> succeeded; direct_debit review -> failed as its magic value says', async () => {
    const m = await timed.merchant(undefined, 'test', { fund: false });
    const p = await create(m, { payment_method: 'promptpay' });
    const bad = await create(m, DEBIT('0000000028'));
    const good = await create(m, DEBIT('0000000010'));
    const settled = (id: string) => waitForStatus(m, `/v1/payment_intents/${id}`, is('succeeded', 'failed'));
    expect(await settled(p.id)).toMatchObject({ status: 'succeeded' });
    expect(await eventsOf(m, p.id)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']);
    expect(await settled(bad.id)).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
    expect(await settled(good.id)).toMatchObject({ status: 'succeeded' });
    expect(await balance(m)).toEqual({ available: '55000', pending: '0' });
  });
});

describe('GraphQL surface', () => {
  const FIELDS = `id amount currency country environment checkoutMode status merchantReference paymentMethod failureCode failureMessage processingReason
    createdAt updatedAt
    nextAction { type url expiresAt displayQrCode { data imageUrlSvg } displayBankTransferInstructions { bank bankName accountNumber accountName reference amount currency } }
    receipt { receiptNumber amount currency paymentMethod bank reference paidAt }`;
  const CREATE = `mutation($input: CreatePaymentIntentInput!) { createPaymentIntent(input: $input) { ${FIELDS} } }`;
  const GET = `query($id: ID!) { paymentIntent(id: $id) { ${FIELDS} } }`;
  const CANCEL = `mutation($id: ID!, $reason: String) { cancelPaymentIntent(id: $id, reason: $reason) { id status failureCode failureMessage nextAction { type } } }`;
  const base = () => ({
    amount: '50000',
    currency: 'THB',
    country: 'TH',
    merchantReference: ref('gql'),
    customer: { name: 'Somchai Jaidee' },
  });

  test('create (each next_action), read, cancel, list; the same records as REST', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const qr = await m.gql(CREATE, { input: { ...base(), paymentMethod: 'promptpay' } });
    expect(qr.body.errors).toBeUndefined();
    const pi = qr.body.data.createPaymentIntent;
    expect(pi).toMatchObject({
      status: 'REQUIRES_ACTION',
      checkoutMode: 'DIRECT',
      environment: 'TEST',
      paymentMethod: 'promptpay',
      receipt: null,
      processingReason: null,
    });
    expect(pi.nextAction).toMatchObject({ type: 'DISPLAY_QR_CODE', url: null, displayBankTransferInstructions: null });
    const rest = (await m.get(`/v1/payment_intents/${pi.id}`)).body;
    expect(pi.nextAction.displayQrCode).toEqual({
      data: rest.next_action.display_qr_code.data,
      imageUrlSvg: rest.next_action.display_qr_code.image_url_svg,
    });
    expect(pi.nextAction.expiresAt).toBe(rest.next_action.expires_at);

    const transfer = await m.gql(CREATE, {
      input: {
        ...base(),
        paymentMethod: 'bank_transfer',
        paymentMethodOptions: { accountName: 'Somchai Jaidee', accountNumber: '1234567890', bank: 'KBANK' },
      },
    });
    expect(transfer.body.data.createPaymentIntent.nextAction).toMatchObject({
      type: 'DISPLAY_BANK_TRANSFER_INSTRUCTIONS',
      displayQrCode: null,
      displayBankTransferInstructions: {
        bank: 'KBANK',
        bankName: 'Kasikornbank',
        accountNumber: '0481234567',
        amount: '50000',
        currency: 'THB',
      },
    });

    const hosted = await m.gql(CREATE, { input: { ...base(), checkoutMode: 'HOSTED' } });
    const h = hosted.body.data.createPaymentIntent;
    expect(h).toMatchObject({ checkoutMode: 'HOSTED', paymentMethod: null });
    expect(h.nextAction.type).toBe('REDIRECT_TO_URL');
    expect(h.nextAction.url).toMatch(new RegExp(`^${srv.url}/checkout/[A-Za-z0-9_-]{43}$`));

    const debit = await m.gql(CREATE, {
      input: {
        ...base(),
        amount: '5000',
        paymentMethod: 'direct_debit',
        paymentMethodOptions: { accountName: 'A B', accountNumber: '1234567890', bank: 'KBANK', nameTh: 'สมชาย' },
      },
    });
    const d = debit.body.data.createPaymentIntent;
    expect(d).toMatchObject({
      status: 'SUCCEEDED',
      nextAction: null,
      receipt: { amount: '5000', paymentMethod: 'direct_debit', bank: 'KBANK' },
    });

    const read = await m.gql(GET, { id: pi.id });
    expect(read.body.data.paymentIntent).toEqual(pi);

    const cancelled = await m.gql(CANCEL, { id: pi.id, reason: 'Out of stock' });
    expect(cancelled.body.data.cancelPaymentIntent).toEqual({
      id: pi.id,
      status: 'CANCELLED',
      failureCode: 'cancelled',
      failureMessage: 'Out of stock',
      nextAction: null,
    });
    const twice = await m.gql(CANCEL, { id: pi.id });
    expect(twice.body.errors![0].extensions.code).toBe('invalid_state');
    const processingOne = await m.gql(CREATE, {
      input: {
        ...base(),
        amount: '5000',
        paymentMethod: 'direct_debit',
        paymentMethodOptions: { accountName: 'A B', accountNumber: '0000000010', bank: 'KBANK', nameTh: 'สมชาย' },
      },
    });
    const pid = processingOne.body.data.createPaymentIntent.id;
    expect(processingOne.body.data.createPaymentIntent).toMatchObject({ status: 'PROCESSING', processingReason: 'risk_review' });
    expect((await m.gql(CANCEL, { id: pid })).body.errors![0].extensions.code).toBe('invalid_state');

    // the REST test helpers move the record; GraphQL reads follow
    await m.post(`/v1/test_helpers/payment_intents/${pid}/succeed`, {});
    const after = await m.gql(GET, { id: pid });
    expect(after.body.data.paymentIntent).toMatchObject({ status: 'SUCCEEDED', processingReason: null, receipt: { amount: '5000' } });

    const list = await m.gql(`{ paymentIntents(first: 10) { nodes { id status processingReason receipt { receiptNumber } } pageInfo { hasNextPage } } }`);
    expect(list.body.data.paymentIntents.nodes.map((n: any) => n.id)).toEqual([pid, d.id, h.id, transfer.body.data.createPaymentIntent.id, pi.id]);
    const filtered = await m.gql(`{ paymentIntents(first: 10, filter: { status: [CANCELLED, SUCCEEDED] }) { nodes { id status } } }`);
    expect(filtered.body.data.paymentIntents.nodes).toEqual([
      { id: pid, status: 'SUCCEEDED' },
      { id: d.id, status: 'SUCCEEDED' },
      { id: pi.id, status: 'CANCELLED' },
    ]);
    expect(await balance(m)).toEqual({ available: '10000', pending: '0' });
  });

  test('errors: payment_method_unavailable, payer data path, foreign id is null / not_found', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const other = await srv.merchant(undefined, 'test', { fund: false });
    const un = await m.gql(CREATE, { input: { ...base(), paymentMethod: 'cash' } });
    expect(un.body.errors![0].extensions.code).toBe('payment_method_unavailable');
    const missing = await m.gql(CREATE, {
      input: { ...base(), paymentMethod: 'bank_transfer', paymentMethodOptions: { bank: 'KBANK', accountName: 'A' } },
    });
    expect(missing.body.errors![0].extensions).toMatchObject({
      code: 'validation_error',
      param: 'input.paymentMethodOptions.accountNumber',
    });
    const p = await create(other, { payment_method: 'promptpay' });
    expect((await m.gql(GET, { id: p.id })).body.data.paymentIntent).toBeNull();
    expect((await m.gql(CANCEL, { id: p.id })).body.errors![0].extensions.code).toBe('not_found');
    expect((await other.get(`/v1/payment_intents/${p.id}`)).body.status).toBe('requires_action');
  });
});
