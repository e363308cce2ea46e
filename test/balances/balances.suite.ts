/**
 * Balances: GET /v1/balances and GraphQL `balances`, scoped to
 * merchant and environment, amounts as exact minor-unit strings (30-digit amounts and
 * sums beyond them), and how each payout transition moves money between buckets.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';
import { balanceOf, balances, settledTopup } from '../helpers/fixtures';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MAX30 = '999999999999999999999999999999';

const balance = balanceOf;
const topup = settledTopup;

/** Sums the merchant's ledger rows per (environment, currency, bucket) as bigints. */
async function ledgerSums(merchantId: string): Promise<Map<string, bigint>> {
  const rows: any[] = await srv.app.db.ds.query('SELECT environment, currency, bucket, amount FROM ledger_entries WHERE merchant_id = ?', [merchantId]);
  const sums = new Map<string, bigint>();
  for (const r of rows) {
    const key = `${r.environment}/${r.currency}/${r.bucket}`;
    sums.set(key, (sums.get(key) ?? 0n) + BigInt(String(r.amount)));
  }
  return sums;
}

async function expectLedgerMatches(c: Client): Promise<void> {
  const sums = await ledgerSums(c.merchantId);
  for (const b of await balances(c)) {
    for (const bucket of ['available', 'pending', 'reserved']) {
      expect(`${bucket}=${(sums.get(`${b.environment}/${b.currency}/${bucket}`) ?? 0n).toString()}`).toBe(`${bucket}=${b[bucket]}`);
    }
  }
}

const GQL_BALANCES = '{ balances { currency environment available pending reserved updatedAt } }';

describe('GET /v1/balances', () => {
  test('a new merchant has no balances; the first credit creates one with the full record shape', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    expect(await balances(c)).toEqual([]);
    await srv.fund(c, 'THB', '100');
    const [b] = await balances(c);
    expect(Object.keys(b).sort()).toEqual(['available', 'currency', 'environment', 'object', 'pending', 'reserved', 'updated_at']);
    expect(b).toMatchObject({ object: 'balance', currency: 'THB', environment: 'test', available: '100', pending: '0', reserved: '0' });
    for (const k of ['available', 'pending', 'reserved']) expect(typeof b[k]).toBe('string');
    expect(b.updated_at).toMatch(ISO_MS);
  });

  test('needs authentication', async () => {
    const res = await srv.client().get('/v1/balances');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  test('one balance per currency, ordered by currency', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    await topup(c, '300', 'USD');
    await topup(c, '100', 'THB');
    await topup(c, '50', 'USDC');
    await topup(c, '200', 'THB');
    const data = await balances(c);
    expect(data.map((b) => [b.currency, b.available])).toEqual([
      ['THB', '300'],
      ['USD', '300'],
      ['USDC', '50'],
    ]);
  });

  test('scoped to merchant and environment', async () => {
    const a = await srv.merchant(undefined, 'test', { fund: false });
    const b = await srv.merchant(undefined, 'test', { fund: false });
    const aLive = await srv.keyFor(a.merchantId, 'live');
    const aTest2 = await srv.keyFor(a.merchantId, 'test');
    await srv.fund(a, 'THB', '1000');
    await srv.fund(b, 'THB', '7');
    await srv.fund(aLive, 'THB', '55');
    await srv.fund(aLive, 'EUR', '5');

    expect(await balance(a)).toEqual({ available: '1000', pending: '0', reserved: '0' });
    expect(await balance(b)).toEqual({ available: '7', pending: '0', reserved: '0' });
    // A second key of the same merchant and environment sees the same balance.
    expect(await balances(aTest2)).toEqual(await balances(a));
    const live = await balances(aLive);
    expect(live.map((x) => [x.currency, x.environment, x.available])).toEqual([
      ['EUR', 'live', '5'],
      ['THB', 'live', '55'],
    ]);

    // A payout in one scope does not touch the others.
    expect((await aLive.post('/v1/payout_intents', payoutBody({ amount: '50' }))).status).toBe(201);
    expect(await balance(aLive)).toEqual({ available: '5', pending: '0', reserved: '50' });
    expect(await balance(a)).toEqual({ available: '1000', pending: '0', reserved: '0' });
    expect(await balance(b)).toEqual({ available: '7', pending: '0', reserved: '0' });
    // A live payout above the live balance is refused even though test has more.
    const over = await aLive.post('/v1/payout_intents', payoutBody({ amount: '6' }));
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('insufficient_balance');
  });
});

describe('GraphQL balances', () => {
  test('same records as REST, camelCase, enum environment, amounts as strings, scoped', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const other = await srv.merchant(undefined, 'test', { fund: false });
    await srv.fund(c, 'THB', '123');
    await srv.fund(c, 'USD', MAX30);
    await srv.fund(other, 'THB', '9');
    const rest = await balances(c);
    const res = await c.gql(GQL_BALANCES);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.balances).toEqual(
      rest.map((b) => ({
        currency: b.currency,
        environment: 'TEST',
        available: b.available,
        pending: b.pending,
        reserved: b.reserved,
        updatedAt: b.updated_at,
      })),
    );
    expect(res.body.data!.balances[1].available).toBe(MAX30);

    const live = await srv.keyFor(c.merchantId, 'live');
    expect((await live.gql(GQL_BALANCES)).body.data!.balances).toEqual([]);
    await srv.fund(live, 'THB', '4');
    expect((await live.gql(GQL_BALANCES)).body.data!.balances).toMatchObject([{ currency: 'THB', environment: 'LIVE', available: '4', reserved: '0' }]);
  });
});

describe('exact amounts', () => {
  test('a 30-digit topup comes back exactly, and sums beyond 30 digits stay exact', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const t = await topup(c, MAX30);
    expect(t.amount).toBe(MAX30);
    expect(await balance(c)).toEqual({ available: MAX30, pending: '0', reserved: '0' });

    await topup(c, MAX30);
    expect((await balance(c)).available).toBe('1999999999999999999999999999998');
    for (let i = 0; i < 3; i++) await topup(c, MAX30);
    const five = (BigInt(MAX30) * 5n).toString();
    expect(five).toBe('4999999999999999999999999999995');
    expect((await balance(c)).available).toBe(five);
    await topup(c, '1');
    expect((await balance(c)).available).toBe('4999999999999999999999999999996');

    // A 30-digit payout reserves exactly, then releases exactly.
    const p = await c.post('/v1/payout_intents', payoutBody({ amount: MAX30 }));
    expect(p.status).toBe(201);
    expect(p.body.amount).toBe(MAX30);
    expect(await balance(c)).toEqual({ available: '3999999999999999999999999999997', pending: '0', reserved: MAX30 });
    const p2 = await c.post('/v1/payout_intents', payoutBody({ amount: '000' + MAX30 }));
    expect(p2.body.amount).toBe(MAX30);
    expect(await balance(c)).toEqual({
      available: '2999999999999999999999999999998',
      pending: '0',
      reserved: '1999999999999999999999999999998',
    });
    await c.post(`/v1/payout_intents/${p.body.id}/cancel`, {});
    await c.post(`/v1/payout_intents/${p2.body.id}/approve`, {});
    await c.post(`/v1/test_helpers/payout_intents/${p2.body.id}/succeed`, {});
    expect(await balance(c)).toEqual({ available: '3999999999999999999999999999997', pending: '0', reserved: '0' });
    // GraphQL reads the same digits.
    expect((await c.gql(GQL_BALANCES)).body.data!.balances[0].available).toBe('3999999999999999999999999999997');
    await expectLedgerMatches(c);
  });

  test('one minor unit more than available is refused; exactly available is accepted', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    await topup(c, MAX30);
    await topup(c, '5');
    const total = (BigInt(MAX30) + 5n).toString();
    expect(total).toHaveLength(31);
    // Amounts are capped at 30 digits, so take the balance down with two payouts.
    const first = await c.post('/v1/payout_intents', payoutBody({ amount: MAX30 }));
    expect(first.status).toBe(201);
    const over = await c.post('/v1/payout_intents', payoutBody({ amount: '6' }));
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('insufficient_balance');
    const exact = await c.post('/v1/payout_intents', payoutBody({ amount: '5' }));
    expect(exact.status).toBe(201);
    expect(await balance(c)).toEqual({ available: '0', pending: '0', reserved: total });
  });
});

describe('payout transitions move money between buckets', () => {
  test('create reserves, cancel releases, success pays out, failure releases', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    await srv.fund(c, 'THB', '1000');

    const a = (await c.post('/v1/payout_intents', payoutBody({ amount: '100' }))).body;
    expect(await balance(c)).toEqual({ available: '900', pending: '0', reserved: '100' });
    // A merchant_reference repeat returns the original and reserves nothing more.
    const again = await c.post('/v1/payout_intents', payoutBody({ amount: '100', merchant_reference: a.merchant_reference }));
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(a.id);
    expect(await balance(c)).toEqual({ available: '900', pending: '0', reserved: '100' });

    expect((await c.post(`/v1/payout_intents/${a.id}/cancel`, { reason: 'changed my mind' })).status).toBe(202);
    expect(await balance(c)).toEqual({ available: '1000', pending: '0', reserved: '0' });

    const b = (await c.post('/v1/payout_intents', payoutBody({ amount: '300' }))).body;
    expect((await c.post(`/v1/payout_intents/${b.id}/approve`, {})).status).toBe(202);
    expect(await balance(c)).toEqual({ available: '700', pending: '0', reserved: '300' });
    expect((await c.post(`/v1/test_helpers/payout_intents/${b.id}/succeed`, {})).status).toBe(200);
    expect(await balance(c)).toEqual({ available: '700', pending: '0', reserved: '0' });

    const d = (await c.post('/v1/payout_intents', payoutBody({ amount: '200' }))).body;
    await c.post(`/v1/payout_intents/${d.id}/approve`, {});
    expect((await c.post(`/v1/test_helpers/payout_intents/${d.id}/fail`, {})).status).toBe(200);
    expect(await balance(c)).toEqual({ available: '700', pending: '0', reserved: '0' });

    // Refused payouts create nothing at all.
    const before = (await c.get('/v1/payout_intents')).body.data.length;
    const over = await c.post('/v1/payout_intents', payoutBody({ amount: '701' }));
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('insufficient_balance');
    expect((await c.get('/v1/payout_intents')).body.data.length).toBe(before);
    const noCurrency = await c.post('/v1/payout_intents', payoutBody({ amount: '1', currency: 'JPY', country: 'JP' }));
    expect(noCurrency.status).toBe(422);
    expect(noCurrency.body.error.code).toBe('insufficient_balance');
    expect((await balances(c)).map((x) => x.currency)).toEqual(['THB']);

    const rows: any[] = await srv.app.db.ds.query('SELECT entry_type, bucket, amount FROM ledger_entries WHERE merchant_id = ? ORDER BY id', [c.merchantId]);
    expect(rows.map((r) => `${r.entry_type}:${r.bucket}:${String(r.amount)}`)).toEqual([
      'topup_succeeded:available:1000',
      'payout_reserved:available:-100',
      'payout_reserved:reserved:100',
      'payout_released:reserved:-100',
      'payout_released:available:100',
      'payout_reserved:available:-300',
      'payout_reserved:reserved:300',
      'payout_paid:reserved:-300',
      'payout_reserved:available:-200',
      'payout_reserved:reserved:200',
      'payout_released:reserved:-200',
      'payout_released:available:200',
    ]);
    await expectLedgerMatches(c);
  });

  test('GraphQL createPayoutIntent reserves and is refused with insufficient_balance like REST', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    await srv.fund(c, 'THB', '50');
    const mutation = `mutation($input: CreatePayoutIntentInput!) { createPayoutIntent(input: $input) { id status amount } }`;
    const input = (amount: string) => ({
      amount,
      currency: 'THB',
      country: 'TH',
      merchantReference: ref('gpo'),
      recipient: { type: 'BANK_ACCOUNT', bankCode: 'KBANK', accountNumber: '1234567890', holderName: 'Somchai Jaidee' },
    });
    const ok = await c.gql(mutation, { input: input('30') });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data!.createPayoutIntent).toMatchObject({ status: 'REQUIRES_APPROVAL', amount: '30' });
    const refused = await c.gql(mutation, { input: input('21') });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('insufficient_balance');
    expect(await balance(c)).toEqual({ available: '20', pending: '0', reserved: '30' });
  });

  test('ledger verify (in process) finds no mismatch after all of the above', async () => {
    const report = await srv.app.ledger.verify();
    expect(report.mismatches).toEqual([]);
    expect(report.balances).toBeGreaterThan(0);
  });
});
