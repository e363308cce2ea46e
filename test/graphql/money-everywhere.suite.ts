/**
 * Money in every input that takes an amount (docs/graphql.md, "Money"; decision 0178): refunds,
 * payment links (fixed and payer-chosen), approval policies, discovery and payout batch items
 * take a MoneyInput to the minor unit (0- and 3-exponent currencies included where the input
 * takes them); the Money form beside its deprecated strings is refused and changes nothing; a
 * currency that does not fit (another than the payment's, bounds in two currencies) is refused.
 * Real HTTP and the test database (SQLite, or MariaDB with DATABASE_URL).
 */
import { randomUUID } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import { Client, ref } from '../helpers/client';
import { succeededPayment } from '../helpers/fixtures';
import { addMember, type MemberClient } from '../helpers/members';

let srv: TestServer;
let m: Client;
beforeAll(async () => {
  srv = await startServer({ env: { REDIS_URL: '' } });
  m = await srv.merchant();
});
afterAll(async () => {
  await srv?.close();
});

const MONEY = 'minorUnits currency exponent decimal';
const refused = (res: { body: { data?: any; errors?: any[] } }, field: string, param: string) => {
  expect(res.body.data?.[field] ?? null).toBeNull();
  expect(res.body.errors![0].extensions).toEqual({ code: 'validation_error', param });
};

describe('createRefund(input: { amountMoney })', () => {
  const CREATE = `mutation($i: CreateRefundInput!) { createRefund(input: $i) { id amount currency amountMoney { ${MONEY} } } }`;
  const refundsOf = async (pi: string) => (await m.get(`/v1/refunds?payment_intent=${pi}&limit=100`)).body.data as { amount: string }[];

  test('refunds exactly the minor units given, in the payment currency', async () => {
    const pi = await succeededPayment(m, '5000');
    const res = await m.gql(CREATE, { i: { paymentIntent: pi.id, amountMoney: { minorUnits: '1234', currency: 'THB' } } }, { 'idempotency-key': randomUUID() });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.createRefund).toMatchObject({
      amount: '1234',
      currency: 'THB',
      amountMoney: { minorUnits: '1234', currency: 'THB', exponent: 2, decimal: '12.34' },
    });
    expect((await m.get(`/v1/payment_intents/${pi.id}`)).body.amount_refunded).toBe('1234');
  });

  test('amountMoney beside amount is refused; another currency than the payment is refused; neither changes anything', async () => {
    const pi = await succeededPayment(m, '5000');
    const both = await m.gql(CREATE, { i: { paymentIntent: pi.id, amount: '100', amountMoney: { minorUnits: '100', currency: 'THB' } } });
    refused(both, 'createRefund', 'input.amountMoney');
    const other = await m.gql(
      CREATE,
      { i: { paymentIntent: pi.id, amountMoney: { minorUnits: '100', currency: 'JPY' } } },
      { 'idempotency-key': randomUUID() },
    );
    refused(other, 'createRefund', 'input.amountMoney.currency');
    expect(await refundsOf(pi.id)).toEqual([]);
    expect((await m.get(`/v1/payment_intents/${pi.id}`)).body.amount_refunded).toBe('0');
    // The string form still works (deprecated, not removed).
    const strings = await m.gql(CREATE, { i: { paymentIntent: pi.id, amount: '100' } });
    expect(strings.body.data!.createRefund).toMatchObject({ amount: '100', amountMoney: { decimal: '1.00' } });
  });
});

describe('createPaymentLink(input: { amountMoney | customerChoosesMoney })', () => {
  const CREATE = `mutation($i: CreatePaymentLinkInput!) { createPaymentLink(input: $i) {
    id amount currency amountMoney { ${MONEY} }
    customerChooses { minimum maximum minimumMoney { ${MONEY} } maximumMoney { ${MONEY} } } } }`;
  const linkCount = async () => (await m.get('/v1/payment_links?limit=100')).body.data.length as number;

  test('a fixed amount and a payer-chosen range, to the minor unit', async () => {
    const fixed = await m.gql(CREATE, { i: { amountMoney: { minorUnits: '25051', currency: 'THB' }, country: 'TH' } });
    expect(fixed.body.errors).toBeUndefined();
    expect(fixed.body.data!.createPaymentLink).toMatchObject({
      amount: '25051',
      currency: 'THB',
      amountMoney: { minorUnits: '25051', currency: 'THB', exponent: 2, decimal: '250.51' },
      customerChooses: null,
    });
    const range = await m.gql(CREATE, {
      i: { customerChoosesMoney: { minimum: { minorUnits: '2001', currency: 'THB' }, maximum: { minorUnits: '500099', currency: 'THB' } }, country: 'TH' },
    });
    expect(range.body.errors).toBeUndefined();
    expect(range.body.data!.createPaymentLink).toMatchObject({
      amount: null,
      currency: 'THB',
      amountMoney: null,
      customerChooses: {
        minimum: '2001',
        maximum: '500099',
        minimumMoney: { minorUnits: '2001', currency: 'THB', exponent: 2, decimal: '20.01' },
        maximumMoney: { minorUnits: '500099', currency: 'THB', exponent: 2, decimal: '5000.99' },
      },
    });
    const rest = (await m.get(`/v1/payment_links/${range.body.data!.createPaymentLink.id}`)).body;
    expect(rest).toMatchObject({ amount: null, currency: 'THB', customer_chooses: { minimum: '2001', maximum: '500099' } });
  });

  test('a Money form beside its strings, or bounds in two currencies, is refused and creates nothing', async () => {
    const before = await linkCount();
    const thb = (minorUnits: string) => ({ minorUnits, currency: 'THB' });
    refused(await m.gql(CREATE, { i: { amountMoney: thb('5000'), amount: '5000', country: 'TH' } }), 'createPaymentLink', 'input.amountMoney');
    refused(await m.gql(CREATE, { i: { amountMoney: thb('5000'), currency: 'THB', country: 'TH' } }), 'createPaymentLink', 'input.amountMoney');
    const range = { minimum: thb('2000'), maximum: thb('9000') };
    refused(
      await m.gql(CREATE, { i: { customerChoosesMoney: range, customerChooses: { minimum: '2000', maximum: '9000' }, country: 'TH' } }),
      'createPaymentLink',
      'input.customerChoosesMoney',
    );
    refused(await m.gql(CREATE, { i: { customerChoosesMoney: range, currency: 'THB', country: 'TH' } }), 'createPaymentLink', 'input.customerChoosesMoney');
    refused(
      await m.gql(CREATE, { i: { customerChoosesMoney: { minimum: thb('2000'), maximum: { minorUnits: '9000', currency: 'IDR' } }, country: 'TH' } }),
      'createPaymentLink',
      'input.customerChoosesMoney.maximum.currency',
    );
    expect(await linkCount()).toBe(before);
  });
});

describe('setApprovalPolicy(input: { minAmountMoney })', () => {
  let owner: MemberClient;
  const SET = `mutation($i: SetApprovalPolicyInput!) { setApprovalPolicy(input: $i) { currency minAmount minAmountMoney { ${MONEY} } approvals } }`;
  const policies = async () => (await owner.gql(`{ approvalPolicies { currency minAmount approvals } }`)).body.data!.approvalPolicies;
  beforeAll(async () => {
    const merchantId = (await srv.app.auth.createMerchant(`Money policies ${process.pid}`)).id;
    owner = await addMember(srv, merchantId, `owner.${process.pid}@money.example`, 'owner');
  });

  test.each([
    ['JPY', '100000', 0, '100000'],
    ['KWD', '1234567', 3, '1234.567'],
    ['THB', '100001', 2, '1000.01'],
  ])('a %s threshold of %s minor units', async (currency, minorUnits, exponent, decimal) => {
    const res = await owner.gql(SET, { i: { minAmountMoney: { minorUnits, currency }, approvals: 2 } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.setApprovalPolicy).toEqual({
      currency,
      minAmount: minorUnits,
      minAmountMoney: { minorUnits, currency, exponent, decimal },
      approvals: 2,
    });
  });

  test('minAmountMoney beside currency or minAmount is refused and changes nothing', async () => {
    const before = await policies();
    const money = { minorUnits: '1', currency: 'JPY' };
    refused(await owner.gql(SET, { i: { minAmountMoney: money, minAmount: '1', approvals: 3 } }), 'setApprovalPolicy', 'input.minAmountMoney');
    refused(await owner.gql(SET, { i: { minAmountMoney: money, currency: 'KWD', approvals: 3 } }), 'setApprovalPolicy', 'input.minAmountMoney');
    expect(await policies()).toEqual(before);
  });
});

describe('paymentMethodOptions(amountMoney)', () => {
  const OPTIONS = `query($a: MoneyInput, $amount: String, $currency: String) {
    paymentMethodOptions(amountMoney: $a, amount: $amount, currency: $currency, country: "TH") {
      nodes { id minAmount maxAmount minAmountMoney { ${MONEY} } maxAmountMoney { ${MONEY} } } } }`;

  test('the Money form finds what the strings find, and the bounds come as Money', async () => {
    const money = await m.gql(OPTIONS, { a: { minorUnits: '50000', currency: 'THB' } });
    const strings = await m.gql(OPTIONS, { amount: '50000', currency: 'THB' });
    expect(money.body.errors).toBeUndefined();
    expect(money.body.data!.paymentMethodOptions.nodes.length).toBeGreaterThan(0);
    expect(money.body.data).toEqual(strings.body.data);
    for (const o of money.body.data!.paymentMethodOptions.nodes) {
      expect(o.minAmountMoney).toMatchObject({ minorUnits: o.minAmount, currency: 'THB', exponent: 2 });
      expect(o.maxAmountMoney).toMatchObject({ minorUnits: o.maxAmount, currency: 'THB', exponent: 2 });
    }
    // One minor unit below an option's smallest amount leaves that option out.
    const option = money.body.data!.paymentMethodOptions.nodes[0];
    const below = await m.gql(OPTIONS, { a: { minorUnits: (BigInt(option.minAmount) - 1n).toString(), currency: 'THB' } });
    expect(below.body.data!.paymentMethodOptions.nodes.map((o: any) => o.id)).not.toContain(option.id);
    const at = await m.gql(OPTIONS, { a: { minorUnits: option.minAmount, currency: 'THB' } });
    expect(at.body.data!.paymentMethodOptions.nodes.map((o: any) => o.id)).toContain(option.id);
    const none = await m.gql(OPTIONS, { a: { minorUnits: '50000', currency: 'JPY' } });
    expect(none.body.data!.paymentMethodOptions.nodes).toEqual([]);
  });

  test('amountMoney beside amount or currency is refused', async () => {
    refused(await m.gql(OPTIONS, { a: { minorUnits: '50000', currency: 'THB' }, amount: '50000' }), 'paymentMethodOptions', 'amountMoney');
    refused(await m.gql(OPTIONS, { a: { minorUnits: '50000', currency: 'THB' }, currency: 'THB' }), 'paymentMethodOptions', 'amountMoney');
  });
});

describe('createPayoutBatch(items: [{ amountMoney }])', () => {
  const CREATE = `mutation($items: [CreatePayoutIntentInput!]!) { createPayoutBatch(items: $items) {
    id status totals { amount currency amountMoney { ${MONEY} } } errors { row param message } } }`;
  const recipient = { bankCode: 'KBANK', accountNumber: '1234567890', holderName: 'Somchai Jaidee' };
  const item = (extra: Record<string, unknown>) => ({ country: 'TH', merchantReference: ref('pob-money'), recipient, ...extra });
  let c: Client;
  beforeAll(async () => {
    c = await srv.merchant();
    await srv.fund(c, 'JPY', '1000000');
    await srv.fund(c, 'KWD', '1000000');
  });

  test('items in JPY and KWD, to the minor unit', async () => {
    const res = await c.gql(
      CREATE,
      {
        items: [
          item({ amountMoney: { minorUnits: '5001', currency: 'JPY' } }),
          item({ amountMoney: { minorUnits: '1234', currency: 'KWD' } }),
          item({ amountMoney: { minorUnits: '1', currency: 'KWD' } }),
        ],
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(res.body.errors).toBeUndefined();
    const batch = res.body.data!.createPayoutBatch;
    expect(batch.errors).toEqual([]);
    const totals = Object.fromEntries(batch.totals.map((t: any) => [t.currency, t.amountMoney]));
    expect(totals).toEqual({
      JPY: { minorUnits: '5001', currency: 'JPY', exponent: 0, decimal: '5001' },
      KWD: { minorUnits: '1235', currency: 'KWD', exponent: 3, decimal: '1.235' },
    });
    const balances = (await c.get('/v1/balances')).body.data as { currency: string; available: string; reserved: string }[];
    expect(balances.find((b) => b.currency === 'JPY')).toMatchObject({ available: '994999', reserved: '5001' });
    expect(balances.find((b) => b.currency === 'KWD')).toMatchObject({ available: '998765', reserved: '1235' });
  });

  test('an item with amountMoney beside amount is refused and creates no batch', async () => {
    const before = (await c.get('/v1/payout_batches?limit=100')).body.data.length;
    const res = await c.gql(CREATE, {
      items: [item({ amountMoney: { minorUnits: '100', currency: 'JPY' } }), item({ amountMoney: { minorUnits: '100', currency: 'JPY' }, amount: '100' })],
    });
    refused(res, 'createPayoutBatch', 'items.1.amountMoney');
    expect((await c.get('/v1/payout_batches?limit=100')).body.data.length).toBe(before);
  });
});
