/**
 * The overview (docs/dashboard.md, "Overview"): per currency, the period's gross volume,
 * fees, refunds, net and payouts, in total and per UTC day, summed from the balance
 * transactions of the calling merchant and environment, to the minor unit.
 */
import { randomUUID } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import { ref, type Client } from '../helpers/client';
import { createPayout, createRefund, postPromptPay, succeededPayment } from '../helpers/fixtures';

let srv: TestServer;
let c: Client;

const FIGURES =
  'grossMoney { minorUnits decimal currency exponent } feesMoney { minorUnits decimal } refundsMoney { minorUnits decimal } netMoney { minorUnits decimal } payoutsMoney { minorUnits decimal }';
const QUERY = `query($period: OverviewPeriod, $currency: CurrencyCode) {
  overview(period: $period, currency: $currency) { period from to currencies { currency ${FIGURES} days { date start ${FIGURES} } } }
}`;

async function overview(client: Client, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await client.gql(QUERY, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.overview;
}

const minor = (f: any) => ({
  gross: f.grossMoney.minorUnits,
  fees: f.feesMoney.minorUnits,
  refunds: f.refundsMoney.minorUnits,
  net: f.netMoney.minorUnits,
  payouts: f.payoutsMoney.minorUnits,
});
const ZERO = { gross: '0', fees: '0', refunds: '0', net: '0', payouts: '0' };

beforeAll(async () => {
  srv = await startServer({ scheduler: false, env: { SIMULATED_SETTLE_MS: '0' } });
  c = await srv.merchant(undefined, 'test', { fund: false });
  const scope = { merchantId: c.merchantId, environment: 'test' as const };
  await srv.app.fees.set(scope, { taxBps: 700, payoutFixed: 2500n, method: { name: 'promptpay', percentBps: 165, fixed: 0n } });

  // THB: a PromptPay payment of 500.00 (fee 8.25 + VAT 0.58 = 8.83) and a direct debit of 50.00 (no fee).
  const pp = await postPromptPay(c, '50000');
  expect(pp.status).toBe(201);
  expect((await c.post(`/v1/test_helpers/payment_intents/${pp.body.id}/succeed`, {})).body.status).toBe('succeeded');
  await succeededPayment(c, '5000');
  // A refund of 20.00 of the PromptPay payment.
  await createRefund(c, { payment_intent: pp.body.id, amount: '2000' });
  // A payout of 100.00 (fee 25.00 + VAT 1.75), and one of 10.00 cancelled (its amount and fee given back).
  await createPayout(c, { amount: '10000' });
  const cancelled = await createPayout(c, { amount: '1000' });
  expect((await c.post(`/v1/payout_intents/${cancelled.id}/cancel`, {})).status).toBe(202);

  // IDR: a bank transfer of 5000000 minor units, settled by the test helper (no IDR fee).
  const idr = await c.post(
    '/v1/payment_intents',
    {
      amount: '5000000',
      currency: 'IDR',
      country: 'ID',
      merchant_reference: ref('pi'),
      customer: { name: 'Budi Santoso', phone: '+628123456789' },
      payment_method: 'bank_transfer',
      payment_method_options: { bank: 'BCA' },
    },
    { idempotencyKey: randomUUID() },
  );
  expect(idr.status).toBe(201);
  expect((await c.post(`/v1/test_helpers/payment_intents/${idr.body.id}/succeed`, {})).body.status).toBe('succeeded');
}, 60_000);
afterAll(() => srv?.close());

test('this month, per currency: gross, fees, refunds, net and payouts to the minor unit', async () => {
  const o = await overview(c);
  expect(o.period).toBe('THIS_MONTH');
  expect(o.currencies.map((x: any) => x.currency)).toEqual(['IDR', 'THB']);
  const [idr, thb] = o.currencies;
  // gross 50000 + 5000; fees 883 + 2675 (the cancelled payout's 2675 came back); net 55000 - 3558 - 2000.
  expect(minor(thb)).toEqual({ gross: '55000', fees: '3558', refunds: '2000', net: '49442', payouts: '10000' });
  expect(thb.grossMoney).toEqual({ minorUnits: '55000', decimal: '550.00', currency: 'THB', exponent: 2 });
  expect([thb.feesMoney.decimal, thb.refundsMoney.decimal, thb.netMoney.decimal, thb.payoutsMoney.decimal]).toEqual(['35.58', '20.00', '494.42', '100.00']);
  expect(minor(idr)).toEqual({ gross: '5000000', fees: '0', refunds: '0', net: '5000000', payouts: '0' });
  expect(idr.grossMoney.currency).toBe('IDR');
});

test('the buckets: every UTC day of the month up to today; today holds the figures, the other days zero', async () => {
  const o = await overview(c);
  const from = new Date(o.from);
  expect(from.getUTCDate()).toBe(1);
  expect(from.getUTCHours()).toBe(0);
  for (const cur of o.currencies) {
    const days = cur.days;
    const today = days[days.length - 1];
    expect(days.length).toBe(Number(today.date.slice(8, 10)));
    expect(days[0].date).toBe(o.from.slice(0, 10));
    expect(days[0].start).toBe(o.from);
    for (const d of days.slice(0, -1)) expect(minor(d)).toEqual(ZERO);
    expect(minor(today)).toEqual(minor(cur));
    expect(today.grossMoney.currency).toBe(cur.currency);
  }
});

test('last 7 days: seven buckets ending today; last month: nothing moved; a currency filter', async () => {
  const week = await overview(c, { period: 'LAST_7_DAYS' });
  const thb = week.currencies.find((x: any) => x.currency === 'THB');
  expect(thb.days).toHaveLength(7);
  expect(minor(thb.days[6])).toEqual(minor(thb));
  expect(minor(thb)).toEqual({ gross: '55000', fees: '3558', refunds: '2000', net: '49442', payouts: '10000' });
  expect(Date.parse(week.to) - Date.parse(week.from)).toBe(7 * 86_400_000);

  const last = await overview(c, { period: 'LAST_MONTH' });
  expect(last.currencies).toEqual([]);
  expect(Date.parse(last.to)).toBe(Date.parse((await overview(c)).from));

  const onlyIdr = await overview(c, { currency: 'IDR' });
  expect(onlyIdr.currencies.map((x: any) => x.currency)).toEqual(['IDR']);
});

test('scoped to the merchant and environment; needs balance_transactions:read', async () => {
  const other = await srv.merchant(undefined, 'test', { fund: false });
  expect((await overview(other)).currencies).toEqual([]);
  const live = await srv.keyFor(c.merchantId, 'live');
  expect((await overview(live)).currencies).toEqual([]);
  const refused = await (await srv.keyFor(c.merchantId, 'test', ['payout_intents:read'])).gql(QUERY);
  expect(refused.body.data!.overview).toBeNull();
  expect(refused.body.errors?.map((e: any) => [e.path, e.extensions?.code])).toEqual([[['overview'], 'permission_denied']]);
  const reader = await srv.keyFor(c.merchantId, 'test', ['balance_transactions:read']);
  expect(minor((await overview(reader)).currencies[1]).net).toBe('49442');
});
