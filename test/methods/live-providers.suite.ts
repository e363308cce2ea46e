/**
 * The simulated providers serve test mode. Without SIMULATED_PROVIDERS_IN_LIVE, live keys
 * discover no method and every create that needs a provider (payment, payout, topup,
 * refund) is 422 no_provider_available on REST and GraphQL, and creates nothing; test mode
 * is untouched. With the flag (demo only), live mode reaches them.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';
import { expectError } from '../helpers/errors';
import { paymentBody, topupBody } from '../helpers/fixtures';

const payment = () => paymentBody({ checkout_mode: 'hosted' });
const topup = () => topupBody();

describe('without SIMULATED_PROVIDERS_IN_LIVE', () => {
  let srv: TestServer;
  let live: Client;
  let test_: Client;
  beforeAll(async () => {
    srv = await startServer({ scheduler: false, env: { SIMULATED_PROVIDERS_IN_LIVE: '' } });
    live = await srv.merchant(undefined, 'live');
    test_ = await srv.keyFor(live.merchantId, 'test');
  });
  afterAll(async () => {
    await srv?.close();
  });

  test('live discovery lists nothing; test discovery lists the methods', async () => {
    const query = '/v1/payment_method_options?amount=10000&currency=THB&country=TH';
    expect((await live.get(query)).body).toEqual({ data: [], has_more: false, next_cursor: null });
    expect((await test_.get(query)).body.data.length).toBeGreaterThan(0);
  });

  test.each([
    ['/v1/payment_intents', payment],
    ['/v1/payout_intents', payoutBody],
    ['/v1/topup_intents', topup],
  ] as const)('live %s: 422 no_provider_available, nothing created', async (route, body) => {
    const made = body();
    expectError(await live.post(route, made, { headers: { 'idempotency-key': ref('k') } }), 422, 'no_provider_available');
    expect((await live.get(`${route}?merchant_reference=${made.merchant_reference as string}`)).body.data).toEqual([]);
  });

  test('live refund: 422 no_provider_available', async () => {
    expectError(await live.post('/v1/refunds', { payment_intent: 'pi_00000000000000000000000000' }), 422, 'no_provider_available');
  });

  test('GraphQL says the same', async () => {
    const res = await live.gql(
      'mutation($input: CreateTopupIntentInput!) { createTopupIntent(input: $input) { id } }',
      { input: { amount: '100', currency: 'THB', country: 'TH', merchantReference: ref('tu') } },
      { 'idempotency-key': ref('k') },
    );
    expect(res.body.errors![0].extensions.code).toBe('no_provider_available');
  });

  test('the live balance is untouched; test mode works as before', async () => {
    const before = (await live.get('/v1/balances')).body;
    expect((await test_.post('/v1/payout_intents', payoutBody())).status).toBe(422); // test mode has no funds in this merchant
    expect((await test_.post('/v1/topup_intents', topup(), { headers: { 'idempotency-key': ref('k') } })).status).toBe(201);
    expect((await live.get('/v1/balances')).body).toEqual(before);
  });
});

describe('with SIMULATED_PROVIDERS_IN_LIVE=1 (demo)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ scheduler: false, env: { SIMULATED_PROVIDERS_IN_LIVE: '1' } });
  });
  afterAll(async () => {
    await srv?.close();
  });

  test('live creates reach the simulated providers', async () => {
    const live = await srv.merchant(undefined, 'live');
    expect((await live.post('/v1/payout_intents', payoutBody())).status).toBe(201);
    expect((await live.get('/v1/payment_method_options?amount=10000&currency=THB&country=TH')).body.data.length).toBeGreaterThan(0);
  });
});
