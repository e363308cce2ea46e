/**
 * Shared fixtures for the end-to-end tests: request bodies, records created through the
 * API, balances as the API reports them, and waiting for a record to reach a status.
 * Everything goes over real HTTP with the merchant's own client; the helpers that
 * assert (a 201 on create, a 202 on approve, a 200 envelope on reads) do so with jest's
 * expect, so a failure points at the call.
 */
import { randomUUID } from 'node:crypto';
import type { TestServer } from './server';
import { Client, eventually, payoutBody, ref } from './client';

export type Balance = { available: string; pending: string; reserved: string };

// ---------------------------------------------------------------- payment intents

/** A direct THB payment intent body; `prefix` names the merchant_reference. */
export function paymentBody(overrides: Record<string, unknown> = {}, prefix = 'pi'): Record<string, any> {
  return {
    amount: '50000',
    currency: 'THB',
    country: 'TH',
    merchant_reference: ref(prefix),
    customer: { name: 'Somchai Jaidee' },
    ...overrides,
  };
}

/** The direct-debit part of a payment body; the account number picks the simulated outcome. */
export const directDebit = (account = '1234567890') => ({
  amount: '5000',
  payment_method: 'direct_debit',
  payment_method_options: { account_name: 'Somchai Jaidee', account_number: account, bank: 'KBANK', name_th: 'สมชาย ใจดี' },
});

/** POST /v1/payment_intents with `body`; expects 201 and returns the record. */
export async function createPayment(c: Client, body: Record<string, unknown>): Promise<any> {
  const res = await c.post('/v1/payment_intents', body);
  expect(res.status).toBe(201);
  return res.body;
}

/**
 * A PromptPay THB payment intent with a full customer and its own Idempotency-Key, as the
 * ledger and sequence tests send it (payment intents take no balance lock). Returns the
 * raw response: callers decide what they expect.
 */
export function postPromptPay(c: Client, amount: bigint | string) {
  return c.post(
    '/v1/payment_intents',
    {
      amount: amount.toString(),
      currency: 'THB',
      country: 'TH',
      merchant_reference: ref('pi'),
      payment_method: 'promptpay',
      customer: { name: 'Somchai Jaidee', email: 'somchai@example.com', phone: '+66812345678', reference: 'cust-1' },
    },
    { idempotencyKey: randomUUID() },
  );
}

// ---------------------------------------------------------------- payout intents

/** POST /v1/payout_intents with payoutBody(overrides); expects 201 and returns the record. */
export async function createPayout(c: Client, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await c.post('/v1/payout_intents', payoutBody(overrides));
  expect(res.status).toBe(201);
  return res.body;
}

/** Approves a payout; expects 202 and returns the record (now processing). */
export async function approvePayout(c: Client, id: string): Promise<any> {
  const res = await c.post(`/v1/payout_intents/${id}/approve`, {});
  expect(res.status).toBe(202);
  return res.body;
}

// ---------------------------------------------------------------- topup intents

/** A THB topup body of 5000 minor units. */
export function topupBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: '5000', currency: 'THB', country: 'TH', merchant_reference: ref('tu'), ...overrides };
}

/** Creates a topup (201) and settles it with the test helper (200); returns the settled record. */
export async function settledTopup(c: Client, amount: string, currency = 'THB', outcome: 'succeed' | 'fail' = 'succeed'): Promise<any> {
  const t = await c.post('/v1/topup_intents', { amount, currency, country: 'TH', merchant_reference: ref('tu') }, { idempotencyKey: randomUUID() });
  expect(t.status).toBe(201);
  const s = await c.post(`/v1/test_helpers/topup_intents/${t.body.id}/${outcome}`, {});
  expect(s.status).toBe(200);
  return s.body;
}

// ---------------------------------------------------------------- refunds

/** A direct-debit payment intent of `amount` (it settles at once: succeeded, `available += amount`). */
export async function succeededPayment(c: Client, amount = '5000'): Promise<any> {
  const p = await createPayment(c, paymentBody({ ...directDebit(), amount }));
  expect(p.status).toBe('succeeded');
  return p;
}

/** POST /v1/refunds; returns the raw response. */
export function postRefund(c: Client, body: Record<string, unknown>, idempotencyKey?: string) {
  return c.post('/v1/refunds', body, idempotencyKey === undefined ? {} : { idempotencyKey });
}

/** POST /v1/refunds expecting 201; returns the refund. */
export async function createRefund(c: Client, body: Record<string, unknown>): Promise<any> {
  const res = await postRefund(c, body);
  if (res.status !== 201) throw new Error(`refund create answered ${res.status}: ${res.text}`);
  return res.body;
}

/** The payment intent's amount_refunded, as GET shows it. */
export async function amountRefunded(c: Client, paymentId: string): Promise<string> {
  const res = await c.get(`/v1/payment_intents/${paymentId}`);
  expect(res.status).toBe(200);
  return res.body.amount_refunded;
}

// ---------------------------------------------------------------- balances

/** GET /v1/balances: 200 with an envelope of exactly `data`; returns the records. */
export async function balances(c: Client): Promise<any[]> {
  const res = await c.get('/v1/balances');
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(['data']);
  return res.body.data;
}

/** The three buckets of one currency ('0' each when the merchant has no balance in it). */
export async function balanceOf(c: Client, currency = 'THB'): Promise<Balance> {
  const b = (await balances(c)).find((x) => x.currency === currency);
  return b ? { available: b.available, pending: b.pending, reserved: b.reserved } : { available: '0', pending: '0', reserved: '0' };
}

/** A new test-mode merchant whose THB balance is exactly `amount` available. */
export async function fundedMerchant(srv: TestServer, amount: string): Promise<Client> {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  await srv.fund(c, 'THB', amount);
  expect(await balanceOf(c)).toEqual({ available: amount, pending: '0', reserved: '0' });
  return c;
}

// ---------------------------------------------------------------- waiting

/**
 * Polls GET `path` (e.g. `/v1/payout_intents/<id>`) until `done(status)` holds and returns
 * that record; throws when it does not happen within `timeoutMs`.
 */
export function waitForStatus(c: Client, path: string, done: (status: string) => boolean, timeoutMs = 10000, everyMs = 50): Promise<any> {
  return eventually(
    async () => {
      const r = await c.get(path);
      return done(r.body?.status) ? r.body : undefined;
    },
    timeoutMs,
    everyMs,
  );
}

/** `status => status === wanted`, for waitForStatus. */
export const is =
  (...wanted: string[]) =>
  (status: string) =>
    wanted.includes(status);
