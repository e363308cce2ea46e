/**
 * Live mode on a real provider, through the real `stripe` SDK pointed at a local fake of
 * Stripe's API (test/helpers/fake-stripe.ts): accounts connected by the CLI, a live PromptPay
 * payment paid by a verified webhook, forged and duplicate webhooks, a lost webhook settled by
 * reconciliation, failover to the next account, and every provider down. `ledger verify`
 * passes after each. Nothing of the provider reaches the merchant.
 */
import { randomBytes } from 'node:crypto';
import { FakeStripe } from '../helpers/fake-stripe';
import { cliLedgerVerifyTest, expectLedgerBalanced, runCli, startServer, TestServer } from '../helpers/server';
import { until, type Client } from '../helpers/client';
import { paymentBody } from '../helpers/fixtures';
import { ProviderAccount } from '../../src/modules/providers/provider-account.entity';
import { PaymentIntent } from '../../src/modules/payments/payment.entity';

const WHSEC = `whsec_${randomBytes(16).toString('hex')}`;
const SECRET_KEY = `sk_test_${randomBytes(16).toString('hex')}`;

let srv: TestServer;
let stripeA: FakeStripe;
let stripeB: FakeStripe;
let accountA: string;
let m: Client;

/** Nothing of the provider in a merchant-facing text: its name, host, port, ids or keys. */
function expectNoLeak(text: string, ...fakes: FakeStripe[]): void {
  expect(text).not.toMatch(/stripe/i);
  expect(text).not.toMatch(/\bpi_[0-9a-f]{24}\b/);
  expect(text).not.toMatch(/\bpa_[0-9a-z]{26}\b/);
  expect(text).not.toContain(SECRET_KEY);
  expect(text).not.toContain(WHSEC);
  for (const f of fakes) expect(text).not.toContain(new URL(f.url).host);
}

async function sendWebhook(account: string, payload: string, signature: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${srv.url}/v1/provider_webhooks/${account}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  });
  return { status: res.status, body: await res.json() };
}

async function providerRefOf(id: string): Promise<string> {
  const row = await srv.app.db.read((em) => em.findOneOrFail(PaymentIntent, { where: { id } }));
  return row.providerReference as string;
}

beforeAll(async () => {
  [stripeA, stripeB] = await Promise.all([FakeStripe.start(), FakeStripe.start()]);
  srv = await startServer({
    env: { SIMULATED_PROVIDERS_IN_LIVE: '', PROVIDER_RECONCILE_AFTER_MS: '1500', PROVIDER_TIMEOUT_MS: '800', PUBLIC_BASE_URL: 'https://pay.example.test' },
  });
  m = await srv.merchant(undefined, 'live', { fund: false });
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await stripeA?.close();
  await stripeB?.close();
});

describe('cli providers', () => {
  test('connect prints the account (never a secret) and seals the secrets at rest', async () => {
    const run = await runCli(
      srv.database,
      ['providers', 'connect', '--env', 'live', '--provider', 'stripe', '--secret-key', SECRET_KEY, '--webhook-secret', WHSEC, '--api-base', stripeA.url],
      { PUBLIC_BASE_URL: 'https://pay.example.test' },
    );
    expect(run.stderr).not.toContain(SECRET_KEY);
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout.trim());
    expect(printed).toEqual({
      object: 'provider_account',
      id: expect.stringMatching(/^pa_[0-9a-z]{26}$/),
      provider: 'stripe',
      environment: 'live',
      status: 'active',
      merchant: null,
      webhook_url: `https://pay.example.test/v1/provider_webhooks/${printed.id}`,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(run.stdout).not.toContain(SECRET_KEY);
    expect(run.stdout).not.toContain(WHSEC);
    accountA = printed.id;
    const row = await srv.app.db.read((em) => em.findOneOrFail(ProviderAccount, { where: { id: accountA } }));
    expect(row.secretsEncrypted).not.toContain(SECRET_KEY);
    expect(row.secretsEncrypted).not.toContain(WHSEC);
    expect(srv.app.providerAccounts.secretsOf(row)).toEqual({ secretKey: SECRET_KEY, webhookSecret: WHSEC });

    const list = await runCli(srv.database, ['providers', 'list', '--env', 'live']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout.trim()).map((a: { id: string }) => a.id)).toEqual([accountA]);
    expect(list.stdout).not.toContain(SECRET_KEY);
  });

  test('plain http only for a loopback host; bad input exits 2 and stores nothing', async () => {
    const base = ['providers', 'connect', '--env', 'live', '--provider', 'stripe', '--secret-key', 'sk_x', '--webhook-secret', 'whsec_x'];
    const plain = await runCli(srv.database, [...base, '--api-base', 'http://api.example.com']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/https/);
    expect((await runCli(srv.database, ['providers', 'connect', '--env', 'live', '--provider', 'paypal', '--secret-key', 'x'])).code).toBe(2);
    expect((await runCli(srv.database, ['providers', 'connect', '--env', 'live', '--provider', 'stripe', '--secret-key', 'x'])).code).toBe(2);
    expect(await srv.app.db.read((em) => em.count(ProviderAccount))).toBe(1);
  });
});

describe('a live PromptPay payment through Stripe', () => {
  test('discovery lists what the account offers, without naming it', async () => {
    // The account list is cached for at most a second (the CLI is another process).
    const res = await until(
      () => m.get('/v1/payment_method_options?amount=50000&currency=THB&country=TH'),
      (r) => r.body.data?.length > 0,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { payment_method: string }) => o.payment_method)).toEqual(['promptpay']);
    expectNoLeak(res.text, stripeA);
  });

  test('created with the provider QR, paid by a verified webhook; a duplicate changes nothing', async () => {
    const created = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' }), { idempotencyKey: randomBytes(8).toString('hex') });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('requires_action');
    expectNoLeak(created.text, stripeA);
    const piRef = await providerRefOf(created.body.id);
    const atStripe = stripeA.intents.get(piRef)!;
    expect(created.body.next_action.display_qr_code.data).toBe(atStripe.next_action.promptpay_display_qr_code.data);
    expect(created.body.next_action.display_qr_code.image_url_svg).toMatch(/^data:image\/svg\+xml/);
    expect(atStripe.metadata).toEqual({ gateway_payment_intent: created.body.id });
    expect([...stripeA.authorizations]).toEqual([`Bearer ${SECRET_KEY}`]);

    const paid = stripeA.pay(piRef, WHSEC);
    expect(await sendWebhook(accountA, paid.payload, paid.signature)).toEqual({ status: 200, body: { received: true } });
    const after = await m.get(`/v1/payment_intents/${created.body.id}`);
    expect(after.body.status).toBe('succeeded');
    expectNoLeak(after.text, stripeA);
    const balance = (await m.get('/v1/balances')).text;

    // The same event again, and a late "processing": nothing moves.
    expect((await sendWebhook(accountA, paid.payload, paid.signature)).status).toBe(200);
    const late = stripeA.event('payment_intent.processing', { ...atStripe, status: 'processing' }, WHSEC);
    expect((await sendWebhook(accountA, late.payload, late.signature)).status).toBe(200);
    expect((await m.get(`/v1/payment_intents/${created.body.id}`)).body.status).toBe('succeeded');
    expect((await m.get('/v1/balances')).text).toBe(balance);

    const events = await m.get('/v1/events?limit=100');
    expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']),
    );
    expect(events.body.data.filter((e: { type: string }) => e.type === 'payment_intent.succeeded')).toHaveLength(1);
    expectNoLeak(events.text, stripeA);
    await expectLedgerBalanced(srv);
  });

  test('a forged webhook is 400 invalid_signature and changes nothing', async () => {
    const created = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' }));
    expect(created.status).toBe(201);
    const piRef = await providerRefOf(created.body.id);
    const forged = stripeA.event('payment_intent.succeeded', { ...stripeA.intents.get(piRef)!, status: 'succeeded' }, 'whsec_not_the_account_secret');
    const res = await sendWebhook(accountA, forged.payload, forged.signature);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_signature');
    const unsigned = await fetch(`${srv.url}/v1/provider_webhooks/${accountA}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: forged.payload,
    });
    expect(unsigned.status).toBe(400);
    const unknown = await sendWebhook('pa_00000000000000000000000000', forged.payload, forged.signature);
    expect(unknown.status).toBe(400);
    expect((await m.get(`/v1/payment_intents/${created.body.id}`)).body.status).toBe('requires_action');
    await expectLedgerBalanced(srv);
  });

  test('a lost webhook: the reconciliation job reads the payment back and settles it', async () => {
    const created = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' }));
    expect(created.status).toBe(201);
    stripeA.pay(await providerRefOf(created.body.id), WHSEC); // the event is never delivered
    const settled = await until(
      () => m.get(`/v1/payment_intents/${created.body.id}`),
      (r) => r.body.status === 'succeeded',
      15_000,
    );
    expect(settled.body.status).toBe('succeeded');
    await expectLedgerBalanced(srv);
  }, 30_000);
});

describe('a live refund through Stripe', () => {
  test('sent once, pending at Stripe, read back until it succeeds', async () => {
    const created = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' }));
    expect(created.status).toBe(201);
    const piRef = await providerRefOf(created.body.id);
    const paid = stripeA.pay(piRef, WHSEC);
    expect((await sendWebhook(accountA, paid.payload, paid.signature)).status).toBe(200);
    stripeA.refundStatus = 'pending';
    const res = await m.post('/v1/refunds', { payment_intent: created.body.id }, { idempotencyKey: randomBytes(8).toString('hex') });
    expect(res.status).toBe(201);
    expectNoLeak(res.text, stripeA);
    const sent = await until(
      async () => [...stripeA.refunds.values()].filter((r) => r.metadata.gateway_refund === res.body.id),
      (r) => r.length > 0,
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ payment_intent: piRef, amount: 50000, status: 'pending' });
    expect((await m.get(`/v1/refunds/${res.body.id}`)).body.status).toBe('pending');
    sent[0].status = 'succeeded'; // Stripe settles it later; the service reads it back
    const settled = await until(
      () => m.get(`/v1/refunds/${res.body.id}`),
      (r) => r.body.status === 'succeeded',
      15_000,
    );
    expect(settled.body.status).toBe('succeeded');
    expect([...stripeA.refunds.values()].filter((r) => r.metadata.gateway_refund === res.body.id)).toHaveLength(1);
    expectNoLeak(settled.text, stripeA);
    stripeA.refundStatus = 'succeeded';
    await expectLedgerBalanced(srv);
  }, 30_000);
});

describe('failover', () => {
  let second: string;
  let m2: Client;
  beforeAll(async () => {
    m2 = await srv.merchant(undefined, 'live', { fund: false });
    // A second account, dedicated to m2: m2 routes over the shared account first, then this one.
    const run = await runCli(srv.database, [
      'providers',
      'connect',
      '--env',
      'live',
      '--provider',
      'stripe',
      '--secret-key',
      'sk_test_second',
      '--webhook-secret',
      WHSEC,
      '--api-base',
      stripeB.url,
      '--merchant',
      m2.merchantId,
    ]);
    expect(run.code).toBe(0);
    second = JSON.parse(run.stdout).id;
    expect(JSON.parse(run.stdout).merchant).toBe(m2.merchantId);
  });
  afterEach(() => {
    stripeA.mode = 'ok';
    stripeB.mode = 'ok';
  });

  test('the first account answers 5xx: the payment starts at the next one, once', async () => {
    stripeA.mode = 'down';
    const before = { a: stripeA.creates, b: stripeB.creates };
    const created = await until(
      () => m2.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' })),
      (r) => r.status === 201 && stripeB.creates > before.b,
    );
    expect(created.status).toBe(201);
    expect(stripeA.creates).toBeGreaterThan(before.a);
    expectNoLeak(created.text, stripeA, stripeB);
    const piRef = await providerRefOf(created.body.id);
    expect(stripeB.intents.has(piRef)).toBe(true);
    const paid = stripeB.pay(piRef, WHSEC);
    expect((await sendWebhook(second, paid.payload, paid.signature)).status).toBe(200);
    expect((await m2.get(`/v1/payment_intents/${created.body.id}`)).body.status).toBe('succeeded');
    await expectLedgerBalanced(srv);
  });

  test('every account down: 503 provider_unavailable with Retry-After, nothing created, the Idempotency-Key released', async () => {
    stripeA.mode = 'down';
    stripeB.mode = 'hang';
    const key = randomBytes(8).toString('hex');
    const body = paymentBody({ payment_method: 'promptpay' });
    const res = await m2.post('/v1/payment_intents', body, { idempotencyKey: key });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('provider_unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expectNoLeak(res.text, stripeA, stripeB);
    const listed = await m2.get(`/v1/payment_intents?limit=100`);
    expect(listed.body.data.map((p: { merchant_reference: string }) => p.merchant_reference)).not.toContain(body.merchant_reference);

    stripeA.mode = 'ok';
    stripeB.mode = 'ok';
    const retry = await m2.post('/v1/payment_intents', body, { idempotencyKey: key });
    expect(retry.status).toBe(201);
    await expectLedgerBalanced(srv);
  }, 30_000);

  test('a disabled account takes no new payment', async () => {
    const run = await runCli(srv.database, ['providers', 'disable', second]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).status).toBe('disabled');
    stripeA.mode = 'ok';
    const res = await until(
      async () => {
        const r = await m2.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' }));
        return { r, atA: r.status === 201 && stripeA.intents.has(await providerRefOf(r.body.id)) };
      },
      ({ atA }) => atA,
    );
    expect(res.r.status).toBe(201);
    expect(res.atA).toBe(true);
  });
});

cliLedgerVerifyTest(() => srv);
