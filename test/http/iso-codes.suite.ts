/**
 * Currency and country on creates are supported codes, and free text holds no control characters (src/domain/iso-codes.ts), on REST and
 * GraphQL alike: a made-up code is 400 validation_error naming the field and creates nothing.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';
import { expectError } from '../helpers/errors';
import { paymentBody, topupBody } from '../helpers/fixtures';
import { CURRENCY_MINOR_UNITS, COUNTRIES } from '../../src/domain/iso-codes';

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  c = await srv.merchant();
});
afterAll(async () => {
  await srv?.close();
});

const topup = topupBody;
const payment = (overrides: Record<string, unknown>) => paymentBody({ checkout_mode: 'hosted', ...overrides });

test.each([
  ['/v1/topup_intents', topup],
  ['/v1/payout_intents', payoutBody],
  ['/v1/payment_intents', payment],
] as const)('%s: a currency that is not one refuses the create, and nothing is created', async (route, body) => {
  const made = body({ currency: 'ABCDEF' });
  const res = await c.post(route, made, { headers: { 'idempotency-key': ref('k') } });
  expectError(res, 400, 'validation_error', 'currency');
  expect(res.body.error.message).toMatch(/must be a supported currency/);
  expect((await c.get(`${route}?merchant_reference=${made.merchant_reference as string}`)).body.data).toEqual([]);
  expectError(await c.post(route, body({ country: 'XX' }), { headers: { 'idempotency-key': ref('k') } }), 400, 'validation_error', 'country');
});

test('codes are still trimmed and upper-cased; token symbols and ISO codes in circulation are accepted', async () => {
  const res = await c.post('/v1/topup_intents', topup({ currency: ' thb ', country: 'th' }), { headers: { 'idempotency-key': ref('k') } });
  expect(res.status).toBe(201);
  expect([res.body.currency, res.body.country]).toEqual(['THB', 'TH']);
  for (const currency of ['USDC', 'JPY', 'KWD', 'EUR']) {
    expect((await c.post('/v1/topup_intents', topup({ currency }), { headers: { 'idempotency-key': ref('k') } })).status).toBe(201);
  }
});

test('GraphQL refuses the same codes with the same error', async () => {
  const res = await c.gql(
    `mutation($input: CreateTopupIntentInput!) { createTopupIntent(input: $input) { id } }`,
    {
      input: { amount: '1000', currency: 'ABCDEF', country: 'TH', merchantReference: ref('tu') },
    },
    { 'idempotency-key': ref('k') },
  );
  expect(res.body.errors![0].extensions).toEqual({ code: 'validation_error', param: 'input.currency' });
});

test('the tables: ISO 4217 minor units where they are not 2, and 249 country codes', () => {
  expect(
    [...CURRENCY_MINOR_UNITS]
      .filter(([, unit]) => unit !== 2)
      .map(([code, unit]) => `${code}:${unit}`)
      .sort(),
  ).toEqual([
    'BHD:3',
    'BIF:0',
    'CLP:0',
    'DJF:0',
    'GNF:0',
    'IQD:3',
    'ISK:0',
    'JOD:3',
    'JPY:0',
    'KMF:0',
    'KRW:0',
    'KWD:3',
    'LYD:3',
    'OMR:3',
    'PYG:0',
    'RWF:0',
    'TND:3',
    'UGX:0',
    'VND:0',
    'VUV:0',
    'XAF:0',
    'XOF:0',
    'XPF:0',
  ]);
  expect(COUNTRIES.size).toBe(249);
  for (const code of ['TH', 'ID', 'US', 'GB', 'SG']) expect(COUNTRIES.has(code)).toBe(true);
  for (const code of ['XX', 'EU', 'UK', 'ZZ']) expect(COUNTRIES.has(code)).toBe(false);
});

describe('free text holds no control characters', () => {
  test.each([
    ['merchant_reference', (s: string) => payoutBody({ merchant_reference: s })],
    [
      'recipient.holder_name',
      (s: string) => payoutBody({ recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: s } }),
    ],
  ])('payout %s with NUL, a C0 or a C1 character: 400 naming it, nothing created', async (param, body) => {
    for (const bad of ['ref\u0000x', 'ref\u001bx', 'ref\u0085x', 'ref\u007fx']) {
      const made = body(bad);
      const res = await c.post('/v1/payout_intents', made);
      expectError(res, 400, 'validation_error', param);
      expect(res.body.error.message).toMatch(/must not contain control characters/);
    }
  });

  test('payment metadata values, and a cancel reason; tab and newline are control characters too', async () => {
    expectError(
      await c.post('/v1/payment_intents', payment({ metadata: { order: 'a\tb' } }), { headers: { 'idempotency-key': ref('k') } }),
      400,
      'validation_error',
      'metadata.order',
    );
    const p = await c.post('/v1/payout_intents', payoutBody());
    expectError(await c.post(`/v1/payout_intents/${p.body.id as string}/cancel`, { reason: 'line one\nline two' }), 400, 'validation_error', 'reason');
  });

  test('GraphQL refuses the same', async () => {
    const res = await c.gql(
      `mutation($input: CreateTopupIntentInput!) { createTopupIntent(input: $input) { id } }`,
      {
        input: { amount: '1000', currency: 'THB', country: 'TH', merchantReference: 'ref\u0000' },
      },
      { 'idempotency-key': ref('k') },
    );
    expect(res.body.errors![0].extensions).toEqual({ code: 'validation_error', param: 'input.merchantReference' });
  });

  test('Thai, emoji and other printable Unicode are text like any other', async () => {
    const res = await c.post('/v1/payout_intents', payoutBody({ merchant_reference: ref('ใบแจ้งหนี้ 😀') }));
    expect(res.status).toBe(201);
  });
});
