/**
 * Payment intent create: validation of every field, the payer-data
 * mapping table (discovery options.payer -> create-request paths), 422
 * payment_method_unavailable, and the merchant_reference fingerprint (payments-api.md
 * Idempotency rule 10) over all eleven fingerprinted fields, on both surfaces.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, ref } from '../helpers/client';
import { paymentBody } from '../helpers/fixtures';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

/** Nothing about payment intents exists for the merchant: no intent, no event, no balance movement. */
async function expectNothingCreated(c: Client): Promise<void> {
  const list = await c.get('/v1/payment_intents?limit=100');
  expect(list.status).toBe(200);
  expect(list.body.data).toEqual([]);
  const events = await c.get('/v1/events?limit=100');
  expect(events.status).toBe(200);
  expect(events.body.data.filter((e: any) => e.type.startsWith('payment_intent.'))).toEqual([]);
  const balances = await c.get('/v1/balances');
  expect(balances.body.data.every((b: any) => b.available === '0' && b.pending === '0')).toBe(true);
}

describe('create validation: 400 validation_error naming the param, nothing created', () => {
  let c: Client;
  beforeAll(async () => {
    c = await srv.merchant(undefined, 'test', { fund: false });
  });
  afterAll(async () => {
    await expectNothingCreated(c);
  });

  const cases: [string, Record<string, unknown> | ((b: Record<string, any>) => void), string][] = [
    // customer
    ['customer missing', (b) => delete b.customer, 'customer'],
    ['customer null', { customer: null }, 'customer'],
    ['customer not an object', { customer: 'Somchai' }, 'customer'],
    ['customer empty', { customer: {} }, 'customer'],
    ['customer.email malformed', { customer: { email: 'not-an-email' } }, 'customer.email'],
    ['customer.email without a domain dot', { customer: { email: 'a@localhost' } }, 'customer.email'],
    ['customer.email not a string', { customer: { email: 42 } }, 'customer.email'],
    ['customer.phone without country code', { customer: { phone: '0812345678' } }, 'customer.phone'],
    ['customer.phone with letters', { customer: { phone: '+66abc12345' } }, 'customer.phone'],
    ['customer.phone too short', { customer: { phone: '+6612' } }, 'customer.phone'],
    ['customer.name too long', { customer: { name: 'x'.repeat(257) } }, 'customer.name'],
    ['customer.name blank', { customer: { name: '   ' } }, 'customer.name'],
    ['customer unknown field', { customer: { name: 'A', nickname: 'B' } }, 'customer.nickname'],
    // amount
    ['amount missing', (b) => delete b.amount, 'amount'],
    ['amount a number', { amount: 50000 }, 'amount'],
    ['amount with decimal point', { amount: '500.00' }, 'amount'],
    ['amount negative', { amount: '-500' }, 'amount'],
    ['amount with sign', { amount: '+500' }, 'amount'],
    ['amount with spaces', { amount: ' 500' }, 'amount'],
    ['amount exponent', { amount: '5e4' }, 'amount'],
    ['amount zero', { amount: '0' }, 'amount'],
    ['amount all zeros', { amount: '0000' }, 'amount'],
    ['amount empty', { amount: '' }, 'amount'],
    ['amount 31 digits', { amount: '1'.repeat(31) }, 'amount'],
    ['amount non-ASCII digits', { amount: '５００' }, 'amount'],
    // currency / country
    ['currency missing', (b) => delete b.currency, 'currency'],
    ['currency with a digit', { currency: 'TH1' }, 'currency'],
    ['currency too short', { currency: 'TH' }, 'currency'],
    ['currency too long', { currency: 'THBTHBT' }, 'currency'],
    ['country missing', (b) => delete b.country, 'country'],
    ['country three letters', { country: 'THA' }, 'country'],
    ['country with a digit', { country: 'T1' }, 'country'],
    // merchant_reference
    ['merchant_reference missing', (b) => delete b.merchant_reference, 'merchant_reference'],
    ['merchant_reference empty', { merchant_reference: '' }, 'merchant_reference'],
    ['merchant_reference too long', { merchant_reference: 'r'.repeat(257) }, 'merchant_reference'],
    // checkout_mode
    ['checkout_mode unknown', { checkout_mode: 'popup' }, 'checkout_mode'],
    ['checkout_mode not a string', { checkout_mode: true }, 'checkout_mode'],
    ['hosted with payment_method', { checkout_mode: 'hosted', payment_method: 'promptpay' }, 'payment_method'],
    ['hosted with payment_method_options', { checkout_mode: 'hosted', payment_method_options: { bank: 'KBANK' } }, 'payment_method_options'],
    // other fields
    ['payment_method malformed', { payment_method: 'Prompt Pay!' }, 'payment_method'],
    ['payment_method_options not an object', { payment_method_options: 'KBANK' }, 'payment_method_options'],
    [
      'payment_method_options unknown field',
      { payment_method: 'bank_transfer', payment_method_options: { bank: 'KBANK', iban: 'x' } },
      'payment_method_options.iban',
    ],
    [
      'payment_method_options.account_number malformed',
      { payment_method: 'bank_transfer', payment_method_options: { bank: 'KBANK', account_name: 'A', account_number: '12ab' } },
      'payment_method_options.account_number',
    ],
    [
      'payment_method_options.name_th not Thai',
      { payment_method: 'bank_transfer', payment_method_options: { bank: 'KTB', name_th: 'Somchai' } },
      'payment_method_options.name_th',
    ],
    [
      'discovery object sent back',
      { payment_method: 'bank_transfer', payment_method_options: { payer: { bank: { required: true } } } },
      'payment_method_options.payer',
    ],
    ['discovery options sent back', { options: { payer: {} } }, 'options'],
    ['return_url not absolute', { return_url: '/thanks' }, 'return_url'],
    ['return_url not http', { return_url: 'javascript:alert(1)' }, 'return_url'],
    ['return_url with credentials', { return_url: 'https://user:pw@shop.example/' }, 'return_url'],
    ['metadata with more than 50 keys', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    ['metadata key over 40 characters', { metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`],
    ['metadata value over 500 characters', { metadata: { note: 'v'.repeat(501) } }, 'metadata.note'],
    ['metadata not an object', { metadata: 'x' }, 'metadata'],
    ['metadata value not a string', { metadata: { order: 7 } }, 'metadata.order'],
    ['device_fingerprint not a string', { device_fingerprint: 7 }, 'device_fingerprint'],
    ['external_reference not a string', { external_reference: {} }, 'external_reference'],
    ['unknown top-level field', { recipent: 'x' }, 'recipent'],
    ['unknown top-level field next to valid ones', { amount: '100', descripton: 'typo' }, 'descripton'],
  ];

  test.each(cases)('%s', async (_name, change, param) => {
    const b = paymentBody();
    if (typeof change === 'function') change(b);
    else Object.assign(b, change);
    const res = await c.post('/v1/payment_intents', b);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.param).toBe(param);
    expect(typeof res.body.error.message).toBe('string');
  });

  test('environment in the body is ignored, not an error (the key decides)', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const res = await m.post('/v1/payment_intents', paymentBody({ environment: 'live', payment_method: 'promptpay' }));
    expect(res.status).toBe(201);
    expect(res.body.environment).toBe('test');
  });

  test('body that is not a JSON object', async () => {
    expect((await c.post('/v1/payment_intents', [paymentBody()])).status).toBe(400);
    const res = await c.request('POST', '/v1/payment_intents', { raw: '{"amount":' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  test('GraphQL reports the same validation errors with the GraphQL argument path', async () => {
    const res = await c.gql(`mutation($input: CreatePaymentIntentInput!) { createPaymentIntent(input: $input) { id } }`, {
      input: { amount: '50000', currency: 'THB', country: 'TH', merchantReference: ref('gql'), customer: { email: 'nope' } },
    });
    expect(res.body.data?.createPaymentIntent ?? null).toBeNull();
    expect(res.body.errors![0].extensions.code).toBe('validation_error');
    expect(res.body.errors![0].extensions.param).toBe('input.customer.email');
    const amount = await c.gql(`mutation($input: CreatePaymentIntentInput!) { createPaymentIntent(input: $input) { id } }`, {
      input: { amount: '1.5', currency: 'THB', country: 'TH', merchantReference: ref('gql'), customer: { name: 'A' } },
    });
    expect(amount.body.errors![0].extensions).toMatchObject({ code: 'validation_error', param: 'input.amount' });
  });
});

describe('accepted values and normalisation', () => {
  let c: Client;
  beforeAll(async () => {
    c = await srv.merchant(undefined, 'test', { fund: false });
  });

  test('leading zeros, lower-case currency/country, 30-digit amount boundary', async () => {
    const res = await c.post('/v1/payment_intents', paymentBody({ amount: '00050000', currency: 'thb', country: 'th', payment_method: 'promptpay' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amount: '50000', currency: 'THB', country: 'TH', checkout_mode: 'direct' });
    // 30 digits parse (and are then simply not eligible for any method): not a validation error.
    const big = await c.post('/v1/payment_intents', paymentBody({ amount: '9'.repeat(30) }));
    expect(big.status).toBe(422);
    expect(big.body.error.code).toBe('payment_method_unavailable');
    // 31 digits with leading zeros is 30 significant digits: accepted too.
    const padded = await c.post('/v1/payment_intents', paymentBody({ amount: `0${'9'.repeat(30)}` }));
    expect(padded.body.error.code).toBe('payment_method_unavailable');
  });

  test('customer with any one field is enough; e-mail and phone are normalised', async () => {
    const res = await c.post(
      '/v1/payment_intents',
      paymentBody({ customer: { email: 'Somchai@EXAMPLE.com', phone: '+66 81-234-5678' }, payment_method: 'promptpay' }),
    );
    expect(res.status).toBe(201);
    for (const customer of [{ reference: 'cus-1' }, { phone: '+66812345678' }, { email: 'a@b.co' }]) {
      const r = await c.post('/v1/payment_intents', paymentBody({ customer, payment_method: 'promptpay' }));
      expect(r.status).toBe(201);
    }
  });
});

describe('payer-data mapping: a missing required payer field is 400 naming the create-request path', () => {
  let c: Client;
  let live: Client;
  beforeAll(async () => {
    c = await srv.merchant(undefined, 'test', { fund: false });
    live = await srv.keyFor(c.merchantId, 'live');
  });
  afterAll(async () => {
    await expectNothingCreated(c);
  });

  const full = { account_name: 'Somchai Jaidee', account_number: '1234567890', bank: 'KBANK' };
  const cases: [string, Record<string, unknown>, string][] = [
    // siampay bank_transfer KBANK needs account_name, account_number, bank
    ['account_name', { payment_method: 'bank_transfer', payment_method_options: { ...full, account_name: undefined } }, 'payment_method_options.account_name'],
    [
      'account_number',
      { payment_method: 'bank_transfer', payment_method_options: { ...full, account_number: undefined } },
      'payment_method_options.account_number',
    ],
    [
      'bank (method with a bank choice)',
      { payment_method: 'bank_transfer', payment_method_options: { account_name: 'A', account_number: '1234567890' } },
      'payment_method_options.bank',
    ],
    // krungpay bank_transfer KTB needs bank, name_th
    ['name_th', { payment_method: 'bank_transfer', payment_method_options: { bank: 'KTB' } }, 'payment_method_options.name_th'],
    // krungpay serves promptpay above siampay's maximum and needs the payer's name
    ['customer_name', { amount: '30000000', payment_method: 'promptpay', customer: { email: 'a@example.com' } }, 'customer.name'],
    // nusapay IDR needs customer_name, customer_phone, bank
    [
      'customer_phone',
      { amount: '5000000', currency: 'IDR', country: 'ID', payment_method: 'bank_transfer', payment_method_options: { bank: 'BCA' } },
      'customer.phone',
    ],
    [
      'customer_name (IDR)',
      {
        amount: '5000000',
        currency: 'IDR',
        country: 'ID',
        customer: { phone: '+628123456789' },
        payment_method: 'bank_transfer',
        payment_method_options: { bank: 'BNI' },
      },
      'customer.name',
    ],
    // direct_debit needs account_name, account_number, bank, name_th
    ['direct_debit name_th', { amount: '1000', payment_method: 'direct_debit', payment_method_options: { ...full } }, 'payment_method_options.name_th'],
    // service-picked method (payment_method omitted) with a bank: names the picked method's first missing field
    ['picked method', { payment_method_options: { bank: 'KBANK' } }, 'payment_method_options.account_name'],
  ];

  test.each(cases)('missing %s', async (_name, overrides, param) => {
    const res = await c.post('/v1/payment_intents', paymentBody(overrides));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param });
    expect(res.body.error.message).toContain(param);
  });

  test('the same data mapped to the create paths is accepted', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const ok = await m.post('/v1/payment_intents', paymentBody({ payment_method: 'bank_transfer', payment_method_options: full }));
    expect(ok.status).toBe(201);
    const idr = await m.post(
      '/v1/payment_intents',
      paymentBody({
        amount: '5000000',
        currency: 'IDR',
        country: 'ID',
        customer: { name: 'Budi', phone: '+628123456789' },
        payment_method: 'bank_transfer',
        payment_method_options: { bank: 'BCA' },
      }),
    );
    expect(idr.status).toBe(201);
    const ktb = await m.post(
      '/v1/payment_intents',
      paymentBody({ payment_method: 'bank_transfer', payment_method_options: { bank: 'ktb', name_th: 'สมชาย ใจดี' } }),
    );
    expect(ktb.status).toBe(201);
    expect(ktb.body.next_action.display_bank_transfer_instructions.bank).toBe('KTB');
  });

  // Every row has three elements: jest passes `done` to a callback with more parameters than the row.
  const unavailable: [string, Record<string, unknown>, boolean][] = [
    ['method below its minimum', { amount: '1000', payment_method: 'online_banking', payment_method_options: { bank: 'SCB' } }, false],
    ['method above its maximum', { amount: '100000001', payment_method: 'promptpay' }, false],
    ['method of another currency', { amount: '5000000', currency: 'IDR', country: 'ID', payment_method: 'promptpay' }, false],
    ['unknown method name', { payment_method: 'cash' }, false],
    ['bank the method does not serve', { payment_method: 'bank_transfer', payment_method_options: { ...full, bank: 'BCA' } }, false],
    ['nothing eligible at all (service picks)', { amount: '50', payment_method: undefined }, false],
    ['hosted with nothing eligible', { amount: '50', checkout_mode: 'hosted' }, false],
    ['test-only method with a live key', { amount: '1000', payment_method: 'direct_debit', payment_method_options: { ...full, name_th: 'สมชาย' } }, true],
  ];

  test.each(unavailable)('%s -> 422 payment_method_unavailable', async (_name, overrides, useLive) => {
    const res = await (useLive ? live : c).post('/v1/payment_intents', paymentBody(overrides));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('payment_method_unavailable');
  });

  test('direct_debit is direct-only: hosted checkout never offers it', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    await m.post('/v1/payment_method_settings/promptpay', { enabled: false });
    // 1000 THB minor units: only promptpay and direct_debit are eligible; promptpay is disabled.
    const res = await m.post('/v1/payment_intents', paymentBody({ amount: '1000', checkout_mode: 'hosted' }));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('payment_method_unavailable');
  });

  test('live key: nothing was created in live either', async () => {
    expect((await live.get('/v1/payment_intents')).body.data).toEqual([]);
  });
});

describe('merchant_reference fingerprint (Idempotency rule 10)', () => {
  let c: Client;
  beforeAll(async () => {
    c = await srv.merchant(undefined, 'test', { fund: false });
  });

  /** A direct bank transfer with every one of the eleven fingerprinted fields set. */
  function complete(reference: string): Record<string, any> {
    return {
      amount: '50000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: reference,
      customer: { name: 'Somchai Jaidee', email: 'somchai@example.com', phone: '+66812345678', reference: 'cus-42' },
      checkout_mode: 'direct',
      payment_method: 'bank_transfer',
      payment_method_options: { account_name: 'Somchai Jaidee', account_number: '1234567890', bank: 'KBANK' },
      return_url: 'https://shop.example/return',
      device_fingerprint: 'dfp-abc',
      metadata: { order_id: '42', channel: 'web' },
      external_reference: 'ext-42',
    };
  }

  const changes: [string, (b: Record<string, any>) => void][] = [
    [
      'amount',
      (b) => {
        b.amount = '50001';
      },
    ],
    [
      'currency',
      (b) => {
        b.currency = 'USD';
      },
    ],
    [
      'country',
      (b) => {
        b.country = 'ID';
      },
    ],
    [
      'customer (a field changed)',
      (b) => {
        b.customer.name = 'Somsri Jaidee';
      },
    ],
    [
      'customer (a field removed)',
      (b) => {
        delete b.customer.reference;
      },
    ],
    [
      'customer (a field added)',
      (b) => {
        b.customer = { name: 'Somchai Jaidee' };
      },
    ],
    [
      'checkout_mode',
      (b) => {
        b.checkout_mode = 'hosted';
        delete b.payment_method;
        delete b.payment_method_options;
      },
    ],
    [
      'payment_method',
      (b) => {
        b.payment_method = 'online_banking';
      },
    ],
    [
      'payment_method (omitted)',
      (b) => {
        delete b.payment_method;
      },
    ],
    [
      'payment_method_options',
      (b) => {
        b.payment_method_options.account_number = '1234567891';
      },
    ],
    [
      'payment_method_options (bank)',
      (b) => {
        b.payment_method_options.bank = 'SCB';
      },
    ],
    [
      'return_url',
      (b) => {
        b.return_url = 'https://shop.example/return?x=1';
      },
    ],
    [
      'return_url (omitted)',
      (b) => {
        delete b.return_url;
      },
    ],
    [
      'device_fingerprint',
      (b) => {
        b.device_fingerprint = 'dfp-abd';
      },
    ],
    [
      'device_fingerprint (omitted)',
      (b) => {
        delete b.device_fingerprint;
      },
    ],
    [
      'metadata',
      (b) => {
        b.metadata.order_id = '43';
      },
    ],
    [
      'metadata (key added)',
      (b) => {
        b.metadata.extra = '1';
      },
    ],
    [
      'metadata (omitted)',
      (b) => {
        delete b.metadata;
      },
    ],
    [
      'external_reference',
      (b) => {
        b.external_reference = 'ext-43';
      },
    ],
    [
      'external_reference (omitted)',
      (b) => {
        delete b.external_reference;
      },
    ],
  ];

  test.each(changes)('a repeat with %s changed -> 409 idempotency_conflict, original untouched', async (_name, change) => {
    const reference = ref('fp');
    const first = await c.post('/v1/payment_intents', complete(reference));
    expect(first.status).toBe(201);
    const changed = complete(reference);
    change(changed);
    const res = await c.post('/v1/payment_intents', changed);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_conflict');
    expect(res.body.error.message).toContain(reference);
    const list = await c.get(`/v1/payment_intents?merchant_reference=${encodeURIComponent(reference)}`);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toEqual(first.body);
  });

  test('checkout_mode direct -> hosted on an auto-routed intent is a conflict too (and the reverse)', async () => {
    const reference = ref('fp');
    const direct = { amount: '50000', currency: 'THB', country: 'TH', merchant_reference: reference, customer: { name: 'A' } };
    expect((await c.post('/v1/payment_intents', direct)).status).toBe(201);
    expect((await c.post('/v1/payment_intents', { ...direct, checkout_mode: 'hosted' })).body.error.code).toBe('idempotency_conflict');
    const reference2 = ref('fp');
    expect((await c.post('/v1/payment_intents', { ...direct, merchant_reference: reference2, checkout_mode: 'hosted' })).status).toBe(201);
    expect((await c.post('/v1/payment_intents', { ...direct, merchant_reference: reference2 })).body.error.code).toBe('idempotency_conflict');
  });

  test('an equivalent request returns the original with 200', async () => {
    const reference = ref('fp');
    const original = complete(reference);
    delete original.checkout_mode; // default: direct
    const first = await c.post('/v1/payment_intents', original);
    expect(first.status).toBe(201);

    const equivalent = {
      external_reference: 'ext-42',
      metadata: { channel: 'web', order_id: '42' },
      device_fingerprint: 'dfp-abc',
      return_url: 'https://shop.example/return',
      payment_method_options: { bank: 'kbank', account_number: '123-456-7890', account_name: '  Somchai   Jaidee ' },
      payment_method: 'Bank_Transfer',
      checkout_mode: 'direct',
      customer: { reference: 'cus-42', phone: '+66 81 234 5678', email: 'somchai@EXAMPLE.COM', name: 'Somchai Jaidee' },
      merchant_reference: reference,
      country: 'th',
      currency: 'thb',
      amount: '000050000',
    };
    const again = await c.post('/v1/payment_intents', equivalent);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const verbatim = await c.post('/v1/payment_intents', original);
    expect(verbatim.status).toBe(200);
    expect(verbatim.body).toEqual(first.body);
    expect((await c.get(`/v1/payment_intents?merchant_reference=${reference}`)).body.data).toHaveLength(1);
    // Exactly one created event.
    const events = await c.get('/v1/events?limit=100&type=payment_intent.created');
    expect(events.body.data.filter((e: any) => e.data.object.id === first.body.id)).toHaveLength(1);
  });

  test('empty metadata and options and null optional fields are the same as omitting them', async () => {
    const reference = ref('fp');
    const b = { amount: '50000', currency: 'THB', country: 'TH', merchant_reference: reference, customer: { name: 'A' } };
    const first = await c.post('/v1/payment_intents', b);
    expect(first.status).toBe(201);
    const again = await c.post('/v1/payment_intents', {
      ...b,
      metadata: {},
      payment_method_options: {},
      return_url: null,
      device_fingerprint: null,
      external_reference: null,
      payment_method: null,
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
  });

  test('the original is returned in its current state (after it moved on), not re-run', async () => {
    const reference = ref('fp');
    const b = {
      amount: '50000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: reference,
      customer: { name: 'A' },
      payment_method: 'promptpay',
    };
    const first = await c.post('/v1/payment_intents', b);
    expect((await c.post(`/v1/payment_intents/${first.body.id}/cancel`, {})).status).toBe(200);
    const again = await c.post('/v1/payment_intents', b);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, status: 'cancelled' });
  });

  test('merchant_reference is scoped per merchant and per environment', async () => {
    const reference = ref('fp');
    const b = {
      amount: '50000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: reference,
      customer: { name: 'A' },
      payment_method: 'promptpay',
    };
    const other = await srv.merchant(undefined, 'test', { fund: false });
    const live = await srv.keyFor(c.merchantId, 'live');
    const a = await c.post('/v1/payment_intents', b);
    const o = await other.post('/v1/payment_intents', { ...b, amount: '60000' });
    const l = await live.post('/v1/payment_intents', { ...b, amount: '70000' });
    expect([a.status, o.status, l.status]).toEqual([201, 201, 201]);
    expect(new Set([a.body.id, o.body.id, l.body.id]).size).toBe(3);
  });

  test('merchant_reference is exact: references differing only in case are two intents (both engines)', async () => {
    const reference = ref('Case');
    const b = { amount: '50000', currency: 'THB', country: 'TH', customer: { name: 'A' }, payment_method: 'promptpay' };
    const upper = await c.post('/v1/payment_intents', { ...b, merchant_reference: reference.toUpperCase() });
    const lower = await c.post('/v1/payment_intents', { ...b, amount: '60000', merchant_reference: reference.toLowerCase() });
    expect([upper.status, lower.status]).toEqual([201, 201]);
    expect(upper.body.id).not.toBe(lower.body.id);
    const list = await c.get(`/v1/payment_intents?merchant_reference=${encodeURIComponent(reference.toLowerCase())}`);
    expect(list.body.data.map((p: any) => p.id)).toEqual([lower.body.id]);
  });

  test('concurrent repeats of one merchant_reference create one intent', async () => {
    const reference = ref('fp');
    const b = complete(reference);
    const results = await Promise.all(Array.from({ length: 6 }, () => c.post('/v1/payment_intents', b)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
  });

  test('GraphQL: equivalent repeat returns the original; a changed field is idempotency_conflict', async () => {
    const reference = ref('fp');
    const rest = await c.post('/v1/payment_intents', complete(reference));
    const mutation = `mutation($input: CreatePaymentIntentInput!) { createPaymentIntent(input: $input) { id status amount checkoutMode } }`;
    const input = {
      amount: '050000',
      currency: 'thb',
      country: 'TH',
      merchantReference: reference,
      checkoutMode: 'DIRECT',
      customer: { name: 'Somchai Jaidee', email: 'somchai@example.com', phone: '+66812345678', reference: 'cus-42' },
      paymentMethod: 'bank_transfer',
      paymentMethodOptions: { accountName: 'Somchai Jaidee', accountNumber: '1234567890', bank: 'KBANK' },
      returnUrl: 'https://shop.example/return',
      deviceFingerprint: 'dfp-abc',
      metadata: { channel: 'web', order_id: '42' },
      externalReference: 'ext-42',
    };
    const same = await c.gql(mutation, { input });
    expect(same.body.errors).toBeUndefined();
    expect(same.body.data!.createPaymentIntent).toEqual({
      id: rest.body.id,
      status: 'REQUIRES_ACTION',
      amount: '50000',
      checkoutMode: 'DIRECT',
    });
    const changed = await c.gql(mutation, { input: { ...input, externalReference: 'ext-other' } });
    expect(changed.body.errors![0].extensions.code).toBe('idempotency_conflict');
    // metadata keys are the merchant's own: not camel/snake-converted, so metadata { orderId } differs from { order_id }.
    const meta = await c.gql(mutation, { input: { ...input, metadata: { channel: 'web', orderId: '42' } } });
    expect(meta.body.errors![0].extensions.code).toBe('idempotency_conflict');
  });
});
