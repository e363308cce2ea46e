/**
 * Provider calls run between atomic phases: the provider is called outside any
 * transaction, so a slow provider holds no row lock and does not stall other writers, and
 * a crash between the phases is finished by the scheduler's recovery.
 */
import { connectMysql } from '../helpers/mysql';
import { PROVIDER_CALL_LEASE_MS } from '../../src/modules/payments/payment-lifecycle.service';
import { PaymentIntent } from '../../src/modules/payments/payment.entity';
import { sleep } from '../../src/db/db';
import { loadConfig } from '../../src/config';
import { ref } from '../helpers/client';
import { startServer, TestServer, usingMysql } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});
afterEach(() => {
  delete srv.app.paymentLifecycle.hooks.beforeProviderCall;
});

const promptPay = () => ({
  amount: '12500',
  currency: 'THB',
  country: 'TH',
  merchant_reference: ref('phase'),
  payment_method: 'promptpay',
  customer: { name: 'Somchai Jaidee' },
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const pendingStarts = () => srv.app.db.read((em) => em.createQueryBuilder(PaymentIntent, 'p').where('p.provider_call = :c', { c: 'start' }).getMany());

test('a provider call that takes 2 s holds no row lock: other writers of the same merchant go ahead meanwhile', async () => {
  const c = await srv.merchant();
  const reached = deferred();
  srv.app.paymentLifecycle.hooks.beforeProviderCall = async () => {
    reached.resolve();
    await sleep(2000);
  };
  let createDone = false;
  const create = c.post('/v1/payment_intents', promptPay()).then((res) => {
    createDone = true;
    return res;
  });
  await reached.promise;

  // Phase 1 committed: the intent is visible with its recovery point while the provider answers.
  const [pending] = await pendingStarts();
  expect(pending).toBeDefined();
  expect(pending.status).toBe('requires_action');
  expect(pending.nextAction).toBeNull();

  // A write that takes the merchant's balance row lock (on SQLite: the one write queue) completes
  // while the provider call is still running.
  const payout = await c.post('/v1/payout_intents', {
    amount: '100',
    currency: 'THB',
    country: 'TH',
    merchant_reference: ref('po'),
    recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai Jaidee' },
  });
  expect(payout.status).toBe(201);
  expect(createDone).toBe(false);

  if (usingMysql()) {
    // The payment's own row is not locked either: another connection locks it without waiting.
    const url = new URL((srv.app.config.database as { url: string }).url);
    const conn = await connectMysql(url, url.pathname.slice(1));
    try {
      await conn.beginTransaction();
      const [rows] = await conn.query('SELECT id FROM payment_intents WHERE id = ? FOR UPDATE NOWAIT', [pending.id]);
      expect(rows).toHaveLength(1);
      await conn.rollback();
    } finally {
      await conn.end();
    }
    expect(createDone).toBe(false);
  }

  const res = await create;
  expect(res.status).toBe(201);
  expect(res.body.id).toBe(pending.id);
  expect(res.body.next_action.type).toBe('display_qr_code');
  expect(await pendingStarts()).toHaveLength(0);
  const events = await c.get(`/v1/events?limit=100`);
  expect(events.body.data.filter((e: any) => e.data.object.id === pending.id).map((e: any) => e.type)).toEqual(['payment_intent.created']);
});

test('the provider is never called inside a database transaction', async () => {
  await expect(srv.app.db.tx(() => srv.app.db.outside(async () => 1))).rejects.toThrow(/must not run inside a database transaction/);
  await expect(srv.app.db.outside(async () => 1)).resolves.toBe(1);
});

test('the transaction guard is on by default and off with NODE_ENV=production unless DB_TX_GUARD=1', () => {
  expect(loadConfig({}).txGuard).toBe(true);
  expect(loadConfig({ NODE_ENV: 'test' }).txGuard).toBe(true);
  expect(loadConfig({ NODE_ENV: 'production', DATA_ENCRYPTION_KEY: 'x', PUBLIC_BASE_URL: 'https://pay.example.com' }).txGuard).toBe(false);
  expect(loadConfig({ NODE_ENV: 'production', DB_TX_GUARD: '1', PUBLIC_BASE_URL: 'https://pay.example.com' }).txGuard).toBe(true);
  expect(loadConfig({ DB_TX_GUARD: '0' }).txGuard).toBe(false);
});

test('a crash between the phases leaves the recovery point; the scheduler finishes the payment once', async () => {
  const c = await srv.merchant();
  srv.app.paymentLifecycle.hooks.beforeProviderCall = async () => {
    throw new Error('injected crash before the provider answered');
  };
  const body = promptPay();
  const key = `phase-${ref('k')}`;
  const failed = await c.post('/v1/payment_intents', body, { idempotencyKey: key });
  expect(failed.status).toBe(500);
  expect(failed.text).not.toMatch(/injected/);
  delete srv.app.paymentLifecycle.hooks.beforeProviderCall;

  const [stuck] = await pendingStarts();
  expect(stuck.merchantReference).toBe(body.merchant_reference);
  // Nothing was announced for a payment whose provider never answered.
  const before = await c.get('/v1/events?limit=100');
  expect(before.body.data.filter((e: any) => e.data.object.id === stuck.id)).toHaveLength(0);

  // The key was released (5xx): a retry reaches the service and gets the intent as it is now.
  const retry = await c.post('/v1/payment_intents', body, { idempotencyKey: key });
  expect(retry.status).toBe(200);
  expect(retry.body.id).toBe(stuck.id);

  // Within the lease nothing is resumed (the call may still be running elsewhere); after it, once.
  expect(await srv.app.paymentLifecycle.resumeStarts(new Date())).toBe(0);
  const later = new Date(Date.now() + PROVIDER_CALL_LEASE_MS + 1000);
  expect(await srv.app.paymentLifecycle.resumeStarts(later)).toBe(1);
  expect(await srv.app.paymentLifecycle.resumeStarts(later)).toBe(0);

  const done = await c.get(`/v1/payment_intents/${stuck.id}`);
  expect(done.body.status).toBe('requires_action');
  expect(done.body.next_action.type).toBe('display_qr_code');
  const after = await c.get('/v1/events?limit=100');
  expect(after.body.data.filter((e: any) => e.data.object.id === stuck.id).map((e: any) => e.type)).toEqual(['payment_intent.created']);
});

test('an intent cancelled while its provider answers keeps its cancellation', async () => {
  const c = await srv.merchant();
  const reached = deferred();
  const release = deferred();
  srv.app.paymentLifecycle.hooks.beforeProviderCall = async () => {
    reached.resolve();
    await release.promise;
  };
  const create = c.post('/v1/payment_intents', promptPay());
  await reached.promise;
  const [pending] = await pendingStarts();
  const cancel = await c.post(`/v1/payment_intents/${pending.id}/cancel`, {});
  expect(cancel.status).toBe(200);
  expect(cancel.body.status).toBe('cancelled');
  release.resolve();
  const res = await create;
  expect(res.status).toBe(201);
  expect(res.body.status).toBe('cancelled');
  expect(res.body.next_action).toBeNull();
  expect(await pendingStarts()).toHaveLength(0);
});
