/**
 * Live mode on Opn Payments, through the service's Opn client pointed at a local fake of
 * Opn's API (test/helpers/fake-opn.ts): discovery's banks from the account's capability, a
 * live PromptPay payment paid by a webhook that is fetched back before it is believed, an
 * internet-banking payment through the bank's page (the payer only ever sees our address
 * until the redirect), forged and duplicate webhooks. `ledger verify` passes after each.
 */
import { randomBytes } from 'node:crypto';
import { FakeOpn } from '../helpers/fake-opn';
import { FakeStripe } from '../helpers/fake-stripe';
import { cliLedgerVerifyTest, expectLedgerBalanced, runCli, startServer, TestServer } from '../helpers/server';
import type { Client } from '../helpers/client';
import { paymentBody } from '../helpers/fixtures';
import { payoutBody, until } from '../helpers/client';
import { PaymentIntent } from '../../src/modules/payments/payment.entity';
import { parseTlv } from '../../src/modules/methods/emvco';

const SECRET_KEY = `skey_test_${randomBytes(12).toString('hex')}`;
const PUBLIC_KEY = `pkey_test_${randomBytes(12).toString('hex')}`;
const BASE = 'https://pay.example.test';

let srv: TestServer;
let opn: FakeOpn;
let account: string;
let m: Client;
/** The PromptPay payment paid in the second test (refunded later). */
let paidPayment: string;
/** The service's log lines (LOG_LEVEL info). */
const logs: string[] = [];

/** Nothing of the provider in a merchant- or payer-facing text: its name, host, ids or keys. */
function expectNoLeak(raw: string): void {
  // QR images are base64 (any three letters may occur there by chance); what they encode is checked as `data`.
  const text = raw.replace(/data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+/g, 'data:');
  expect(text).not.toMatch(/opn|omise/i);
  expect(text).not.toMatch(/\b(chrg|src|evnt|rfnd)_test_/);
  expect(text).not.toMatch(/\bpa_[0-9a-z]{26}\b/);
  expect(text).not.toContain(SECRET_KEY);
  expect(text).not.toContain(new URL(opn.url).host);
}

async function sendWebhook(body: string, to = account): Promise<{ status: number; body: any }> {
  const res = await fetch(`${srv.url}/v1/provider_webhooks/${to}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, body: await res.json() };
}

async function chargeOf(id: string): Promise<string> {
  const row = await srv.app.db.read((em) => em.findOneOrFail(PaymentIntent, { where: { id } }));
  return row.providerReference as string;
}

beforeAll(async () => {
  opn = await FakeOpn.start();
  srv = await startServer({
    env: { SIMULATED_PROVIDERS_IN_LIVE: '', PROVIDER_RECONCILE_AFTER_MS: '1000', PROVIDER_TIMEOUT_MS: '800', PUBLIC_BASE_URL: BASE, LOG_LEVEL: 'info' },
    logDestination: { write: (line: string) => void logs.push(line) },
  });
  m = await srv.merchant(undefined, 'live', { fund: false });
  const run = await runCli(
    srv.database,
    ['providers', 'connect', '--env', 'live', '--provider', 'opn', '--public-key', PUBLIC_KEY, '--secret-key', SECRET_KEY, '--api-base', opn.url],
    { PUBLIC_BASE_URL: BASE },
  );
  expect(run.code).toBe(0);
  expect(run.stdout).not.toContain(SECRET_KEY);
  expect(run.stdout).not.toContain(PUBLIC_KEY);
  const printed = JSON.parse(run.stdout.trim());
  expect(printed).toMatchObject({ object: 'provider_account', provider: 'opn', environment: 'live', status: 'active' });
  account = printed.id;
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await opn?.close();
});

test("discovery lists PromptPay and the account's banks (from its capability), without naming the provider", async () => {
  const res = await until(
    () => m.get('/v1/payment_method_options?amount=50000&currency=THB&country=TH'),
    (r) => r.body.data?.length > 1,
  );
  expect(res.status).toBe(200);
  const offered = res.body.data.map((o: { payment_method: string; bank?: string | null }) => `${o.payment_method}${o.bank ? `:${o.bank}` : ''}`).sort();
  expect(offered).toEqual(['online_banking:BAY', 'online_banking:BBL', 'online_banking:KBANK', 'online_banking:SCB', 'promptpay']);
  expectNoLeak(res.text);
  // The pin names the provider; another provider's pin finds nothing here.
  expect((await m.get('/v1/payment_method_options?amount=50000&currency=THB&country=TH&provider=opn')).body.data.length).toBe(5);
  expect((await m.get('/v1/payment_method_options?amount=50000&currency=THB&country=TH&provider=stripe')).body.data).toEqual([]);
});

test('a live PromptPay payment: QR from the charge, paid by a webhook fetched back from the provider; a duplicate changes nothing', async () => {
  const created = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' }), { idempotencyKey: randomBytes(8).toString('hex') });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('requires_action');
  expectNoLeak(created.text);
  const chargeId = await chargeOf(created.body.id);
  const charge = opn.charges.get(chargeId)!;
  expect(charge.metadata).toEqual({ gateway_payment_intent: created.body.id });
  expect(charge.amount).toBe(50000);
  // The QR is the charge's Thai QR bill payment: its biller id and reference 1 come from the charge.
  const qr = parseTlv(created.body.next_action.display_qr_code.data);
  const account30 = parseTlv(qr.get('30')!);
  expect(account30.get('01')).toBe(`${charge.source.references.omise_tax_id}00`);
  expect(account30.get('02')).toBe(charge.source.references.reference_number_1);
  expect(qr.get('54')).toBe('500.00');
  expect(created.body.next_action.display_qr_code.image_url_svg).toMatch(/^data:image\/svg\+xml/);
  // The secret key for charges, the public key for sources; nothing else.
  const basic = (k: string) => `Basic ${Buffer.from(`${k}:`).toString('base64')}`;
  expect([...opn.authorizations].sort()).toEqual([basic(PUBLIC_KEY), basic(SECRET_KEY)].sort());

  const event = opn.pay(chargeId);
  expect(await sendWebhook(opn.webhookBody(event))).toEqual({ status: 200, body: { received: true } });
  const after = await m.get(`/v1/payment_intents/${created.body.id}`);
  expect(after.body.status).toBe('succeeded');
  expectNoLeak(after.text);
  paidPayment = created.body.id;
  const balance = (await m.get('/v1/balances')).text;

  // The same event again, and the older charge.create event (out of order): nothing moves.
  expect((await sendWebhook(opn.webhookBody(event))).status).toBe(200);
  const older = [...opn.events.values()].find((e) => e.key === 'charge.create' && e.data.id === chargeId)!;
  expect((await sendWebhook(JSON.stringify(older))).status).toBe(200);
  expect((await m.get(`/v1/payment_intents/${created.body.id}`)).body.status).toBe('succeeded');
  expect((await m.get('/v1/balances')).text).toBe(balance);
  const events = await m.get('/v1/events?limit=100');
  expect(events.body.data.filter((e: { type: string; data: { object: { id: string } } }) => e.type === 'payment_intent.succeeded')).toHaveLength(1);
  expectNoLeak(events.text);
  await expectLedgerBalanced(srv);
});

test('a forged webhook (claims a paid charge; the provider does not know the event) is 400 invalid_signature and changes nothing', async () => {
  const created = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' }));
  expect(created.status).toBe(201);
  const chargeId = await chargeOf(created.body.id);
  const forged = {
    object: 'event',
    id: 'evnt_test_forged00000000',
    key: 'charge.complete',
    data: { ...opn.charges.get(chargeId), status: 'successful', paid: true },
  };
  const res = await sendWebhook(JSON.stringify(forged));
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('invalid_signature');
  expect((await sendWebhook('not json')).status).toBe(400);
  expect((await sendWebhook(JSON.stringify({ ...forged, id: '../charges/x' }))).status).toBe(400);
  // The provider cannot be asked: 503 with Retry-After (it delivers again later), nothing changes.
  opn.eventsDown = true;
  const unconfirmed = await fetch(`${srv.url}/v1/provider_webhooks/${account}`, {
    method: 'POST',
    body: JSON.stringify({ ...forged, id: 'evnt_test_unreachable' }),
  });
  opn.eventsDown = false;
  expect(unconfirmed.status).toBe(503);
  expect(((await unconfirmed.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
  expect(Number(unconfirmed.headers.get('retry-after'))).toBeGreaterThan(0);
  // An event about a charge that is not ours (or not a charge) is answered 200 without asking Opn:
  // posted event ids cannot spend the account's API quota.
  const reads = opn.eventReads;
  for (const data of [
    { ...forged.data, id: 'chrg_test_notours0000000' },
    { object: 'transfer', id: 'trsf_test_x' },
  ]) {
    expect((await sendWebhook(JSON.stringify({ ...forged, id: 'evnt_test_other0000000', data }))).status).toBe(200);
  }
  expect(opn.eventReads).toBe(reads);
  // A real event id, but of the charge's creation: believed as fetched (pending), so nothing moves.
  const real = [...opn.events.values()].find((e) => e.key === 'charge.create' && e.data.id === chargeId)!;
  expect((await sendWebhook(JSON.stringify({ ...real, data: { ...real.data, status: 'successful' } }))).status).toBe(200);
  expect((await m.get(`/v1/payment_intents/${created.body.id}`)).body.status).toBe('requires_action');
  await expectLedgerBalanced(srv);
});

test("an internet-banking payment: our address, then the bank's page, paid by the provider's webhook", async () => {
  const created = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'online_banking', payment_method_options: { bank: 'BBL' } }));
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('requires_action');
  expectNoLeak(created.text);
  const url = new URL(created.body.next_action.url);
  expect(url.origin).toBe(BASE);
  expect(url.pathname).toMatch(/^\/checkout\/[^/]+\/authorize$/);
  const chargeId = await chargeOf(created.body.id);
  const charge = opn.charges.get(chargeId)!;
  expect(charge.source.type).toBe('internet_banking_bbl');
  expect(charge.return_uri).toBe(`${BASE}${url.pathname.replace(/\/authorize$/, '')}`);

  // Approving on our own (simulated) bank page does nothing for a real provider's payment.
  const selfApprove = await fetch(`${srv.url}${url.pathname}`, { method: 'POST', redirect: 'manual' });
  expect(selfApprove.status).toBe(303);
  expect((await m.get(`/v1/payment_intents/${created.body.id}`)).body.status).toBe('requires_action');

  // Our address sends the payer on to the bank's page; the bank sends the payer back to the checkout page.
  const hop = await fetch(`${srv.url}${url.pathname}`, { redirect: 'manual' });
  expect(hop.status).toBe(303);
  expect(hop.headers.get('location')).toBe(charge.authorize_uri);
  const back = await fetch(charge.authorize_uri, { redirect: 'manual' });
  expect(back.status).toBe(302);
  expect(back.headers.get('location')).toBe(charge.return_uri);
  const event = [...opn.events.values()].find((e) => e.key === 'charge.complete' && e.data.id === chargeId)!;
  expect((await sendWebhook(JSON.stringify(event))).status).toBe(200);
  const after = await m.get(`/v1/payment_intents/${created.body.id}`);
  expect(after.body.status).toBe('succeeded');
  expectNoLeak(after.text);
  // Once paid, our address no longer leads to the bank.
  const later = await fetch(`${srv.url}${url.pathname}`, { redirect: 'manual' });
  expect(later.headers.get('location') ?? '').not.toContain(new URL(opn.url).host);
  await expectLedgerBalanced(srv);
});

test("a payment the bank rejects fails, and the provider's reason stays in the logs", async () => {
  const created = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'online_banking', payment_method_options: { bank: 'KBANK' } }));
  expect(created.status).toBe(201);
  const chargeId = await chargeOf(created.body.id);
  expect(opn.charges.get(chargeId)!.source.type).toBe('mobile_banking_kbank');
  expect((await sendWebhook(opn.webhookBody(opn.fail(chargeId)))).status).toBe(200);
  const after = await m.get(`/v1/payment_intents/${created.body.id}`);
  expect(after.body.status).toBe('failed');
  expect(after.body.failure_code).toBe('payment_failed');
  expectNoLeak(after.text);
  const line = logs.find((l) => l.includes(created.body.id) && l.includes('payment_rejected'));
  expect(line).toContain('The payment was rejected by the bank');
  // No key in any log line, and no Authorization header.
  for (const l of logs) {
    expect(l).not.toContain(SECRET_KEY);
    expect(l).not.toContain(PUBLIC_KEY);
    expect(l).not.toMatch(/Basic [A-Za-z0-9+/=]{8,}/);
  }
  await expectLedgerBalanced(srv);
});

test('a refund goes back through the account that took the payment, once', async () => {
  const res = await m.post('/v1/refunds', { payment_intent: paidPayment, amount: '20000' }, { idempotencyKey: randomBytes(8).toString('hex') });
  expect(res.status).toBe(201);
  expect(res.body.status).toBe('pending');
  expectNoLeak(res.text);
  const settled = await until(
    () => m.get(`/v1/refunds/${res.body.id}`),
    (r) => r.body.status !== 'pending',
  );
  expect(settled.body.status).toBe('succeeded');
  expectNoLeak(settled.text);
  const atOpn = [...opn.refunds.values()].filter((r) => r.metadata.gateway_refund === res.body.id);
  expect(atOpn).toHaveLength(1);
  expect(atOpn[0]).toMatchObject({ amount: 20000, charge: await chargeOf(paidPayment) });
  expect((await m.get(`/v1/payment_intents/${paidPayment}`)).body.amount_refunded).toBe('20000');
  await expectLedgerBalanced(srv);
});

test('a lost webhook: the reconciliation job reads the charge back and settles the payment', async () => {
  const created = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' }));
  expect(created.status).toBe(201);
  opn.pay(await chargeOf(created.body.id)); // the event is never delivered
  const settled = await until(
    () => m.get(`/v1/payment_intents/${created.body.id}`),
    (r) => r.body.status === 'succeeded',
    15_000,
  );
  expect(settled.body.status).toBe('succeeded');
  await expectLedgerBalanced(srv);
}, 30_000);

test('the only account down (5xx, then no answer): 503 provider_unavailable, nothing created, the key released', async () => {
  const key = randomBytes(8).toString('hex');
  const body = paymentBody({ payment_method: 'promptpay' });
  for (const mode of ['down', 'hang'] as const) {
    opn.mode = mode;
    const res = await m.post('/v1/payment_intents', body, { idempotencyKey: key });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('provider_unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expectNoLeak(res.text);
  }
  const listed = await m.get('/v1/payment_intents?limit=100');
  expect(listed.body.data.map((p: { merchant_reference: string }) => p.merchant_reference)).not.toContain(body.merchant_reference);
  opn.mode = 'ok';
  const retry = await m.post('/v1/payment_intents', body, { idempotencyKey: key });
  expect(retry.status).toBe(201);
  await expectLedgerBalanced(srv);
}, 30_000);

describe('live payouts as Opn transfers', () => {
  const available = async (): Promise<string> => (await m.get('/v1/balances')).body.data.find((b: { currency: string }) => b.currency === 'THB')?.available;
  const transferOf = (payout: string) =>
    until(
      async () => [...opn.transfers.values()].filter((t) => t.metadata.gateway_payout_intent === payout),
      (t) => t.length > 0,
    );

  beforeAll(async () => {
    await srv.fund(m, 'THB', '100000');
  });

  test('an approved payout becomes a transfer to a recipient made from its bank account (reused), and is paid', async () => {
    const first = await m.post('/v1/payout_intents', payoutBody({ amount: '3000' }), { idempotencyKey: randomBytes(8).toString('hex') });
    expect(first.status).toBe(201);
    expect(first.body.status).toBe('requires_approval');
    expectNoLeak(first.text);
    expect((await m.post(`/v1/payout_intents/${first.body.id}/approve`, {})).status).toBeLessThan(300);
    const [transfer] = await transferOf(first.body.id);
    // Not retried by Opn once failed: a failed payout gives its amount back at once.
    expect(transfer).toMatchObject({ amount: 3000, paid: false, fail_fast: true });
    const recipient = opn.recipients.get(transfer.recipient)!;
    expect(recipient).toMatchObject({ name: 'Somchai Jaidee', number: '1234567890', bank_account: { brand: 'kbank' } });
    expect((await m.get(`/v1/payout_intents/${first.body.id}`)).body.status).toBe('processing');

    opn.payTransfer(transfer.id);
    const paid = await until(
      () => m.get(`/v1/payout_intents/${first.body.id}`),
      (r) => r.body.status === 'succeeded',
      10_000,
    );
    expect(paid.body.status).toBe('succeeded');
    expectNoLeak(paid.text);

    // The same bank account again: the recipient is reused, one transfer per payout.
    const second = await m.post('/v1/payout_intents', payoutBody({ amount: '2000' }));
    expect(second.status).toBe(201);
    await m.post(`/v1/payout_intents/${second.body.id}/approve`, {});
    const [again] = await transferOf(second.body.id);
    expect(again.recipient).toBe(transfer.recipient);
    expect(opn.recipients.size).toBe(1);
    expect([...opn.transfers.values()].filter((t) => t.metadata.gateway_payout_intent === first.body.id)).toHaveLength(1);
    opn.payTransfer(again.id);
    await until(
      () => m.get(`/v1/payout_intents/${second.body.id}`),
      (r) => r.body.status === 'succeeded',
      10_000,
    );
    await expectLedgerBalanced(srv);
  }, 30_000);

  test('a failed transfer fails the payout and returns its money', async () => {
    const before = await available();
    const res = await m.post(
      '/v1/payout_intents',
      payoutBody({ amount: '4000', recipient: { type: 'bank_account', bank_code: 'SCB', account_number: '9876543210', holder_name: 'Malee Dee' } }),
    );
    expect(res.status).toBe(201);
    await m.post(`/v1/payout_intents/${res.body.id}/approve`, {});
    const [transfer] = await transferOf(res.body.id);
    expect(opn.recipients.get(transfer.recipient)!.bank_account.brand).toBe('scb');
    opn.failTransfer(transfer.id);
    const failed = await until(
      () => m.get(`/v1/payout_intents/${res.body.id}`),
      (r) => r.body.status === 'failed',
      10_000,
    );
    expect(failed.body.status).toBe('failed');
    expect(failed.body.failure_code).toBe('payout_failed');
    expectNoLeak(failed.text);
    expect(await available()).toBe(before);
    await expectLedgerBalanced(srv);
  }, 30_000);

  test('a bank the provider cannot pay to is a 400 at create, and nothing is held', async () => {
    const before = await available();
    const res = await m.post(
      '/v1/payout_intents',
      payoutBody({ recipient: { type: 'bank_account', bank_code: 'BCA', account_number: '1234567890', holder_name: 'Budi' } }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'recipient.bank_code' });
    expectNoLeak(res.text);
    expect(await available()).toBe(before);
  });

  test("a live batch: a bank no account pays to is that row's error; approved, each row is a transfer, and the batch completes", async () => {
    const before = await available();
    const row = (i: number, bank = 'KBANK') =>
      payoutBody({
        amount: String(1000 + i),
        merchant_reference: `live-batch-${randomBytes(6).toString('hex')}`,
        recipient: { type: 'bank_account', bank_code: bank, account_number: `55500000${i}1`, holder_name: `Row ${i}` },
      });
    const refused = await m.post('/v1/payout_batches', { items: [row(1), row(2, 'BCA')] });
    expect(refused.status).toBe(201);
    expect(refused.body.status).toBe('invalid');
    expect(refused.body.errors).toEqual([{ row: 2, param: 'recipient.bank_code', message: expect.stringContaining('BCA') }]);
    expectNoLeak(refused.text);
    expect(await available()).toBe(before);

    const created = await m.post('/v1/payout_batches', { items: [row(1), row(2, 'SCB'), row(3)] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'requires_approval', totals: [{ currency: 'THB', amount: '3006' }] });
    const approved = await m.post(`/v1/payout_batches/${created.body.id}/approve`, {});
    expect(approved.status).toBe(202);
    const items = (await m.get(`/v1/payout_batches/${created.body.id}/items?limit=10`)).body.data as { id: string; amount: string }[];
    expect(items).toHaveLength(3);
    for (const item of items) {
      const [transfer] = await transferOf(item.id);
      expect(transfer.amount).toBe(Number(item.amount));
      opn.payTransfer(transfer.id);
    }
    const done = await until(
      () => m.get(`/v1/payout_batches/${created.body.id}`),
      (r) => r.body.status === 'completed',
      15_000,
    );
    expect(done.body.status).toBe('completed');
    expectNoLeak(done.text);
    expect(BigInt(await available())).toBe(BigInt(before) - 3006n);
    await expectLedgerBalanced(srv);
  }, 40_000);
});

describe('failover across providers', () => {
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await FakeStripe.start();
    const run = await runCli(srv.database, [
      'providers',
      'connect',
      '--env',
      'live',
      '--provider',
      'stripe',
      '--secret-key',
      'sk_test_failover',
      '--webhook-secret',
      'whsec_failover',
      '--api-base',
      stripe.url,
    ]);
    expect(run.code).toBe(0);
  });
  afterAll(async () => {
    opn.mode = 'ok';
    await stripe?.close();
  });

  test('Opn down: a PromptPay payment starts at the Stripe account instead, once; a bank Stripe lacks is still Opn-only', async () => {
    opn.mode = 'down';
    const created = await until(
      () => m.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' })),
      (r) => r.status === 201 && stripe.intents.size > 0,
    );
    expect(created.status).toBe(201);
    expectNoLeak(created.text);
    expect(created.text).not.toContain(new URL(stripe.url).host);
    expect(stripe.intents.has(await chargeOf(created.body.id))).toBe(true);
    expect(stripe.intents.size).toBe(1);
    // Online banking has no other account: 503, nothing created.
    const banking = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'online_banking', payment_method_options: { bank: 'BAY' } }));
    expect(banking.status).toBe(503);
    expect(banking.body.error.code).toBe('provider_unavailable');
    await expectLedgerBalanced(srv);
  });
});

cliLedgerVerifyTest(() => srv);
