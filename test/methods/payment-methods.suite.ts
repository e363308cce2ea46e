/**
 * Method discovery (GET /v1/payment_method_options) and merchant method settings, on a
 * real server and database. Expectations follow the catalogue in
 * src/modules/methods/providers.ts (documented in docs/payments.md).
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, ref } from '../helpers/client';
import { localCodes } from '../../src/modules/methods/providers';

let srv: TestServer;
let c: Client;
let live: Client;

beforeAll(async () => {
  srv = await startServer();
  c = await srv.merchant(undefined, 'test', { fund: false });
  live = await srv.keyFor(c.merchantId, 'live');
});
afterAll(async () => {
  await srv.close();
});

type Option = {
  payment_method: string;
  bank: string | null;
  options: { payer: Record<string, { required: true }> };
  min_amount: string | null;
  max_amount: string | null;
};

async function discover(client: Client, query: string): Promise<Option[]> {
  const res = await client.get(`/v1/payment_method_options${query ? `?${query}` : ''}`);
  expect(res.status).toBe(200);
  assertNoProviderFacts(res.text);
  return res.body.data;
}

const keys = (options: Option[]) => options.map((o) => (o.bank ? `${o.payment_method}:${o.bank}` : o.payment_method));

/** Provider codes, provider-local method and bank codes and routing facts must never be on the wire. */
function assertNoProviderFacts(raw: string): void {
  const codes = localCodes();
  expect(codes.length).toBeGreaterThan(10);
  const lower = raw.toLowerCase();
  for (const code of codes) expect(lower).not.toContain(code.toLowerCase());
  expect(raw).not.toMatch(/"(provider|priority|local_code|localCode|routing)"/);
}

describe('discovery response', () => {
  test('is a page envelope of provider-neutral records with the contract fields', async () => {
    const res = await c.get('/v1/payment_method_options?amount=50000&currency=THB&country=TH');
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    const first = res.body.data[0];
    expect(Object.keys(first).sort()).toEqual(
      ['bank', 'display_name', 'max_amount', 'min_amount', 'next_action_type', 'object', 'options', 'payment_method'].sort(),
    );
    expect(first).toMatchObject({
      object: 'payment_method_option',
      payment_method: 'promptpay',
      bank: null,
      next_action_type: 'display_qr_code',
      min_amount: '100',
      max_amount: '100000000',
    });
    expect(first.options).toEqual({ payer: {} });
    const transfer = res.body.data.find((o: Option) => o.payment_method === 'bank_transfer' && o.bank === 'KBANK');
    expect(transfer.options.payer).toEqual({
      account_name: { required: true },
      account_number: { required: true },
      bank: { required: true },
    });
    expect(transfer.display_name).toBe('Bank transfer - Kasikornbank');
    assertNoProviderFacts(res.text);
  });

  test('one record per (method, bank), in a stable order', async () => {
    const options = await discover(c, 'amount=50000&currency=THB&country=TH');
    expect(keys(options)).toEqual([
      'promptpay',
      'bank_transfer:KBANK',
      'bank_transfer:SCB',
      'bank_transfer:BBL',
      'bank_transfer:KTB',
      'bank_transfer:BAY',
      'online_banking:SCB',
      'online_banking:KTB',
      'online_banking:BAY',
      'direct_debit:KBANK',
      'direct_debit:SCB',
    ]);
    expect(new Set(keys(options)).size).toBe(options.length);
  });

  test('payer requirements use the spec names and follow the routed provider', async () => {
    const small = await discover(c, 'amount=50000&currency=THB&country=TH');
    expect(small.find((o) => o.payment_method === 'promptpay')!.options.payer).toEqual({});
    expect(small.find((o) => o.payment_method === 'bank_transfer' && o.bank === 'KTB')!.options.payer).toEqual({
      bank: { required: true },
      name_th: { required: true },
    });
    expect(small.find((o) => o.payment_method === 'direct_debit')!.options.payer).toEqual({
      account_name: { required: true },
      account_number: { required: true },
      bank: { required: true },
      name_th: { required: true },
    });
    // Above the first provider's PromptPay limit the second one serves it, and it needs the payer's name.
    const big = await discover(c, 'amount=30000000&currency=THB&country=TH');
    expect(big.find((o) => o.payment_method === 'promptpay')!.options.payer).toEqual({ customer_name: { required: true } });
    const allowed = new Set(['customer_name', 'customer_phone', 'account_name', 'account_number', 'bank', 'name_th']);
    for (const o of [...small, ...big]) for (const f of Object.keys(o.options.payer)) expect(allowed.has(f)).toBe(true);
  });
});

describe('eligibility', () => {
  test('amount limits: below every minimum and above every maximum give an empty list', async () => {
    expect(await discover(c, 'amount=50&currency=THB&country=TH')).toEqual([]);
    expect(keys(await discover(c, 'amount=1000&currency=THB&country=TH'))).toEqual(['promptpay', 'direct_debit:KBANK', 'direct_debit:SCB']);
    expect(keys(await discover(c, 'amount=100&currency=THB&country=TH'))).toEqual(['promptpay', 'direct_debit:KBANK', 'direct_debit:SCB']);
    expect(keys(await discover(c, 'amount=30000000&currency=THB&country=TH'))).toEqual([
      'promptpay',
      'bank_transfer:KBANK',
      'bank_transfer:SCB',
      'bank_transfer:BBL',
      'bank_transfer:KTB',
      'bank_transfer:BAY',
    ]);
    expect(keys(await discover(c, 'amount=100000000&currency=THB&country=TH'))).toEqual([
      'promptpay',
      'bank_transfer:KBANK',
      'bank_transfer:KTB',
      'bank_transfer:BAY',
    ]);
    expect(await discover(c, 'amount=100000001&currency=THB&country=TH')).toEqual([]);
  });

  test('bounds in each record are the union of the eligible offers', async () => {
    const all = await discover(c, 'currency=THB&country=TH');
    const pp = all.find((o) => o.payment_method === 'promptpay')!;
    expect([pp.min_amount, pp.max_amount]).toEqual(['100', '100000000']);
    const small = await discover(c, 'amount=1000&currency=THB&country=TH');
    const pp2 = small.find((o) => o.payment_method === 'promptpay')!;
    expect([pp2.min_amount, pp2.max_amount]).toEqual(['100', '20000000']);
  });

  test('currency and country', async () => {
    expect(await discover(c, 'amount=5000000&currency=IDR&country=TH')).toEqual([]);
    expect(await discover(c, 'amount=50000&currency=THB&country=ID')).toEqual([]);
    const id = await discover(c, 'amount=5000000&currency=IDR&country=ID');
    expect(keys(id)).toEqual(['bank_transfer:BCA', 'bank_transfer:BNI', 'bank_transfer:BRI', 'bank_transfer:MANDIRI']);
    expect(id[0].options.payer).toEqual({
      customer_name: { required: true },
      customer_phone: { required: true },
      bank: { required: true },
    });
    expect(await discover(c, 'amount=5000000&currency=USD&country=US')).toEqual([]);
    // Lower case normalises, as on create.
    expect(keys(await discover(c, 'amount=5000000&currency=idr&country=id'))).toEqual(keys(id));
  });

  test('checkout mode: hosted leaves out direct-only methods; direct is the default', async () => {
    const direct = keys(await discover(c, 'amount=50000&currency=THB&country=TH&checkout_mode=direct'));
    const byDefault = keys(await discover(c, 'amount=50000&currency=THB&country=TH'));
    const hosted = keys(await discover(c, 'amount=50000&currency=THB&country=TH&checkout_mode=hosted'));
    expect(byDefault).toEqual(direct);
    expect(direct).toContain('direct_debit:KBANK');
    expect(hosted).not.toContain('direct_debit:KBANK');
    expect(hosted).not.toContain('direct_debit:SCB');
    expect(hosted).toEqual(direct.filter((k) => !k.startsWith('direct_debit')));
  });

  test('strict provider pin', async () => {
    const krung = await discover(c, 'amount=50000&currency=THB&country=TH&provider=krungpay');
    expect(keys(krung)).toEqual([
      'promptpay',
      'bank_transfer:KBANK',
      'bank_transfer:KTB',
      'bank_transfer:BAY',
      'online_banking:SCB',
      'online_banking:KTB',
      'online_banking:BAY',
    ]);
    // Pinned, bank_transfer KBANK is the pinned provider's, with its payer data (no fallback to the preferred provider).
    expect(krung.find((o) => o.bank === 'KBANK')!.options.payer).toEqual({ bank: { required: true }, name_th: { required: true } });
    expect(krung.find((o) => o.payment_method === 'promptpay')!.options.payer).toEqual({ customer_name: { required: true } });
    expect(keys(await discover(c, 'amount=50000&currency=THB&country=TH&provider=siampay'))).toEqual([
      'promptpay',
      'bank_transfer:KBANK',
      'bank_transfer:SCB',
      'bank_transfer:BBL',
    ]);
    expect(await discover(c, 'amount=50000&currency=THB&country=TH&provider=nusapay')).toEqual([]);
    expect(await discover(c, 'amount=50000&currency=THB&country=TH&provider=no_such_provider')).toEqual([]);
    // A provider below its minimum for the amount: nothing, even though another provider would serve it.
    expect(await discover(c, 'amount=1000&currency=THB&country=TH&provider=krungpay')).toEqual([]);
  });

  test("the key's environment: a test-only provider is absent for live keys", async () => {
    const testKeys = keys(await discover(c, 'amount=50000&currency=THB&country=TH'));
    const liveKeys = keys(await discover(live, 'amount=50000&currency=THB&country=TH'));
    expect(testKeys).toContain('direct_debit:KBANK');
    expect(liveKeys).not.toContain('direct_debit:KBANK');
    expect(liveKeys).toEqual(testKeys.filter((k) => !k.startsWith('direct_debit')));
    expect(await discover(live, 'amount=50000&currency=THB&country=TH&provider=directline')).toEqual([]);
    // environment cannot be overridden by the query.
    expect(keys(await discover(live, 'amount=50000&currency=THB&country=TH&environment=test'))).toEqual(liveKeys);
  });

  test('disabled methods disappear for that merchant and environment only', async () => {
    const m = await srv.merchant(undefined, 'test', { fund: false });
    const other = await srv.merchant(undefined, 'test', { fund: false });
    const mLive = await srv.keyFor(m.merchantId, 'live');
    const off = await m.post('/v1/payment_method_settings/promptpay', { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ object: 'payment_method_setting', payment_method: 'promptpay', enabled: false });
    expect(keys(await discover(m, 'amount=50000&currency=THB&country=TH'))).not.toContain('promptpay');
    expect(keys(await discover(m, 'amount=50000&currency=THB&country=TH&checkout_mode=hosted'))).not.toContain('promptpay');
    expect(keys(await discover(other, 'amount=50000&currency=THB&country=TH'))).toContain('promptpay');
    expect(keys(await discover(mLive, 'amount=50000&currency=THB&country=TH'))).toContain('promptpay');

    const create = await m.post('/v1/payment_intents', {
      amount: '50000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: ref('pm'),
      customer: { name: 'A' },
      payment_method: 'promptpay',
    });
    expect(create.status).toBe(422);
    expect(create.body.error.code).toBe('payment_method_unavailable');

    // Disabling every method of the amount's range empties the list.
    await m.post('/v1/payment_method_settings/direct_debit', { enabled: false });
    expect(await discover(m, 'amount=1000&currency=THB&country=TH')).toEqual([]);

    const settings = await m.get('/v1/payment_method_settings');
    expect(settings.status).toBe(200);
    const byMethod = Object.fromEntries(settings.body.data.map((s: { payment_method: string; enabled: boolean }) => [s.payment_method, s.enabled]));
    expect(byMethod).toEqual({ promptpay: false, bank_transfer: true, online_banking: true, direct_debit: false });
    const untouched = settings.body.data.find((s: { payment_method: string }) => s.payment_method === 'bank_transfer');
    expect(untouched.updated_at).toBeNull();

    expect((await m.post('/v1/payment_method_settings/promptpay', { enabled: true })).body.enabled).toBe(true);
    expect(keys(await discover(m, 'amount=50000&currency=THB&country=TH'))).toContain('promptpay');
  });
});

describe('validation', () => {
  test.each([
    ['amount=abc&currency=THB', 'amount'],
    ['amount=0&currency=THB', 'amount'],
    ['amount=1000', 'currency'],
    ['currency=TH1', 'currency'],
    ['country=THA', 'country'],
    ['checkout_mode=popup', 'checkout_mode'],
    ['provider=Bad%20Provider!', 'provider'],
    ['limit=5', 'limit'],
    ['amount=1&amount=2&currency=THB', 'amount'],
  ])('%s -> 400 naming %s', async (query, param) => {
    const res = await c.get(`/v1/payment_method_options?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param });
  });

  test('no parameters: everything the key may use', async () => {
    const options = await discover(c, '');
    expect(keys(options)).toContain('bank_transfer:BCA');
    expect(keys(options)).toContain('promptpay');
  });

  test('needs authentication', async () => {
    const res = await srv.client().get('/v1/payment_method_options');
    expect(res.status).toBe(401);
  });

  test('settings: unknown method 404, bad body 400, Idempotency-Key replays', async () => {
    expect((await c.post('/v1/payment_method_settings/cash', { enabled: false })).status).toBe(404);
    const bad = await c.post('/v1/payment_method_settings/promptpay', { enabled: 'no' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('enabled');
    const extra = await c.post('/v1/payment_method_settings/promptpay', { enabled: true, provider: 'siampay' });
    expect(extra.body.error).toMatchObject({ code: 'validation_error', param: 'provider' });
    const key = ref('idem');
    const first = await c.post('/v1/payment_method_settings/online_banking', { enabled: false }, { idempotencyKey: key });
    const again = await c.post('/v1/payment_method_settings/online_banking', { enabled: false }, { idempotencyKey: key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    const conflict = await c.post('/v1/payment_method_settings/online_banking', { enabled: true }, { idempotencyKey: key });
    expect(conflict.status).toBe(409);
    await c.post('/v1/payment_method_settings/online_banking', { enabled: true });
  });
});

describe('GraphQL paymentMethodOptions', () => {
  const Q =
    'query($f: Int, $a: String, $m: CheckoutMode) { paymentMethodOptions(amount: "50000", currency: "THB", country: "TH", checkoutMode: $m, first: $f, after: $a) { edges { cursor node { paymentMethod bank } } pageInfo { hasNextPage endCursor } } }';
  type Conn = {
    edges: { cursor: string; node: { paymentMethod: string; bank: string | null } }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
  const gqlKeys = (conn: Conn) => conn.edges.map((e) => (e.node.bank ? `${e.node.paymentMethod}:${e.node.bank}` : e.node.paymentMethod));

  test('first/after page through the same list REST returns whole', async () => {
    const all = keys(await discover(c, 'amount=50000&currency=THB&country=TH'));
    expect(all.length).toBeGreaterThan(3);
    const whole = await c.gql<{ paymentMethodOptions: Conn }>(Q, {});
    expect(gqlKeys(whole.body.data!.paymentMethodOptions)).toEqual(all);
    expect(whole.body.data!.paymentMethodOptions.pageInfo.hasNextPage).toBe(false);

    const paged: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < all.length; i++) {
      const res = await c.gql<{ paymentMethodOptions: Conn }>(Q, { f: 2, a: after });
      const conn: Conn = res.body.data!.paymentMethodOptions;
      paged.push(...gqlKeys(conn));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(paged).toEqual(all);
  });

  test.each([
    [{ f: 0 }, 'first', 'first must be a whole number from 1 to 100.'],
    [{ f: 101 }, 'first', 'first must be a whole number from 1 to 100.'],
    [{ a: 'nope' }, 'after', 'after is not a cursor returned by paymentMethodOptions.'],
    [{ f: 0, a: 'nope' }, 'after', 'after is not a cursor returned by paymentMethodOptions.'],
  ])('%j -> validation_error naming %s', async (variables, param, message) => {
    const res = await c.gql(Q, variables);
    expect(res.body.data).toEqual({ paymentMethodOptions: null });
    expect(res.body.errors![0]).toMatchObject({ message, extensions: { code: 'validation_error', param } });
  });
});
