/**
 * MoneyInput (docs/graphql.md, "Money"): creates take `amountMoney { minorUnits currency }`;
 * the string `amount` and `currency` are still accepted (deprecated); both at once is refused
 * and creates nothing; either form fingerprints the same (a repeat in the other form is the same record).
 */
import { randomUUID } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import { Client, ref } from '../helpers/client';

let srv: TestServer;
let m: Client;
beforeAll(async () => {
  srv = await startServer();
  m = await srv.merchant();
});
afterAll(async () => {
  await srv.close();
});

const CREATE = `mutation($input: CreatePayoutIntentInput!) { createPayoutIntent(input: $input) { id amount currency amountMoney { minorUnits currency decimal } } }`;
const recipient = { bankCode: 'KBANK', accountNumber: '1234567890', holderName: 'Somchai Jaidee' };

test('a payout created with amountMoney; the deprecated string form gives the same record for the same reference', async () => {
  const merchantReference = ref('money-in');
  const res = await m.gql(CREATE, { input: { amountMoney: { minorUnits: '15050', currency: 'THB' }, country: 'TH', merchantReference, recipient } });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data!.createPayoutIntent).toMatchObject({
    amount: '15050',
    currency: 'THB',
    amountMoney: { minorUnits: '15050', currency: 'THB', decimal: '150.50' },
  });
  const again = await m.gql(CREATE, { input: { amount: '15050', currency: 'THB', country: 'TH', merchantReference, recipient } });
  expect(again.body.errors).toBeUndefined();
  expect(again.body.data!.createPayoutIntent.id).toBe(res.body.data!.createPayoutIntent.id);
  expect(again.body.extensions).toMatchObject({ deduplicated: true });
});

test('both forms at once, or a bad currency in amountMoney, is a validation_error and creates nothing', async () => {
  const before = (await m.get('/v1/payout_intents?limit=100')).body.data.length;
  const merchantReference = ref('money-both');
  const both = await m.gql(
    CREATE,
    { input: { amountMoney: { minorUnits: '100', currency: 'THB' }, amount: '100', country: 'TH', merchantReference, recipient } },
    { 'idempotency-key': randomUUID() },
  );
  expect(both.body.data?.createPayoutIntent ?? null).toBeNull();
  expect(both.body.errors![0].extensions).toEqual({ code: 'validation_error', param: 'input.amountMoney' });
  const lower = await m.gql(CREATE, { input: { amountMoney: { minorUnits: '100', currency: 'thb' }, country: 'TH', merchantReference, recipient } });
  expect(lower.body.errors![0].extensions.code).toBe('validation_error');
  const none = await m.gql(CREATE, { input: { country: 'TH', merchantReference, recipient } });
  expect(none.body.errors![0].extensions).toMatchObject({ code: 'validation_error', param: expect.stringMatching(/^input\.(amount|currency)$/) });
  expect((await m.get('/v1/payout_intents?limit=100')).body.data.length).toBe(before);
});

test('payment and topup creates take amountMoney too', async () => {
  const topup = await m.gql(
    `mutation($input: CreateTopupIntentInput!) { createTopupIntent(input: $input) { amount currency } }`,
    { input: { amountMoney: { minorUnits: '5000', currency: 'THB' }, country: 'TH', merchantReference: ref('tu-money') } },
    { 'idempotency-key': randomUUID() },
  );
  expect(topup.body.errors).toBeUndefined();
  expect(topup.body.data!.createTopupIntent).toEqual({ amount: '5000', currency: 'THB' });
  const payment = await m.gql(`mutation($input: CreatePaymentIntentInput!) { createPaymentIntent(input: $input) { amount currency } }`, {
    input: {
      amountMoney: { minorUnits: '4200', currency: 'THB' },
      country: 'TH',
      merchantReference: ref('pi-money'),
      customer: { email: 'payer@example.com' },
    },
  });
  expect(payment.body.errors).toBeUndefined();
  expect(payment.body.data!.createPaymentIntent).toEqual({ amount: '4200', currency: 'THB' });
});
