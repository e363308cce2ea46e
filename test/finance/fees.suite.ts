/**
 * Fees end to end (docs/finance.md): a succeeded payment books its method's fee and the tax on
 * it as its own balance transaction; a payout holds its fee with its amount (and gets it back
 * when cancelled or failed); a refund keeps the fee; a merchant without a schedule pays none.
 * The CLI sets and shows the schedule; the ledger verifies after everything.
 */
import { startServer, TestServer, runCli } from '../helpers/server';
import { payoutBody, type Client } from '../helpers/client';
import { balanceOf, createPayout, approvePayout, createRefund, postPromptPay, settledTopup, succeededPayment } from '../helpers/fixtures';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ scheduler: false, env: { SIMULATED_SETTLE_MS: '0' } });
}, 60_000);
afterAll(() => srv?.close());

async function txnsOf(c: Client, source: string): Promise<any[]> {
  const res = await c.get(`/v1/balance_transactions?source=${source}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function succeededPromptPay(c: Client, amount: string): Promise<any> {
  const created = await postPromptPay(c, amount);
  expect(created.status).toBe(201);
  const done = await c.post(`/v1/test_helpers/payment_intents/${created.body.id}/succeed`, {});
  expect(done.status).toBe(200);
  expect(done.body.status).toBe('succeeded');
  return done.body;
}

describe('with a fee schedule', () => {
  let c: Client;
  beforeAll(async () => {
    c = await srv.merchant(undefined, 'test', { fund: false });
    const set = await runCli(srv.database, [
      'fees',
      'set',
      '--merchant',
      c.merchantId,
      '--env',
      'test',
      '--method',
      'promptpay',
      '--percent-bps',
      '165',
      '--fixed',
      '0',
      '--tax-bps',
      '700',
    ]);
    expect(set.code).toBe(0);
    // The payout fee by the service the CLI calls (one CLI start less: they are slow on a busy machine).
    await srv.app.fees.set({ merchantId: c.merchantId, environment: 'test' }, { payoutFixed: 2500n });
    const shown = await runCli(srv.database, ['fees', 'show', '--merchant', c.merchantId, '--env', 'test']);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      merchant_id: c.merchantId,
      environment: 'test',
      tax_bps: 700,
      payout_fixed: '2500',
      methods: [{ payment_method: 'promptpay', percent_bps: 165, fixed: '0' }],
    });
  }, 60_000);

  test('a succeeded PromptPay payment books its fee and VAT: 50000 -> fee 825, tax 58, net 49117', async () => {
    const p = await succeededPromptPay(c, '50000');
    expect(await balanceOf(c)).toMatchObject({ available: '49117', pending: '0', reserved: '0' });
    const txns = await txnsOf(c, p.id);
    const byType = Object.fromEntries(txns.map((t) => [t.type, t]));
    expect(byType.payment).toMatchObject({
      object: 'balance_transaction',
      amount: '50000',
      fee: '0',
      net: '50000',
      currency: 'THB',
      status: 'available',
      source: { type: 'payment_intent', id: p.id },
    });
    expect(byType.payment_fee).toMatchObject({ amount: '-883', fee: '0', net: '-883', source: { type: 'payment_intent', id: p.id } });
    expect(txns).toHaveLength(2);
    for (const t of txns) {
      expect(t.id).toMatch(/^txn_/);
      expect(BigInt(t.amount) - BigInt(t.fee)).toBe(BigInt(t.net));
      expect((await c.get(`/v1/balance_transactions/${t.id}`)).body).toEqual(t);
    }
  });

  test('GraphQL feeSchedule: what the operator set, in this environment only; needs balances:read', async () => {
    const q = '{ feeSchedule { environment taxBps payoutFixed methods { paymentMethod percentBps fixed } updatedAt } }';
    const res = await c.gql(q);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.feeSchedule).toMatchObject({
      environment: 'TEST',
      taxBps: 700,
      payoutFixed: '2500',
      methods: [{ paymentMethod: 'promptpay', percentBps: 165, fixed: '0' }],
    });
    const live = await srv.keyFor(c.merchantId, 'live');
    expect((await live.gql(q)).body.data!.feeSchedule).toBeNull();
    const restricted = await srv.keyFor(c.merchantId, 'test', ['payout_intents:read']);
    const refused = await restricted.gql(q);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('permission_denied');
    const reader = await srv.keyFor(c.merchantId, 'test', ['balances:read']);
    expect((await reader.gql(q)).body.data!.feeSchedule.taxBps).toBe(700);
  });

  test('a method without a rate pays no fee (direct debit settles at once)', async () => {
    const before = BigInt((await balanceOf(c)).available);
    const p = await succeededPayment(c, '5000');
    expect(BigInt((await balanceOf(c)).available) - before).toBe(5000n);
    expect((await txnsOf(c, p.id)).map((t) => t.type)).toEqual(['payment']);
  });

  test('a payout holds amount + fee + tax (2500 + 175); the check covers both; cancel gives all back', async () => {
    const available = BigInt((await balanceOf(c)).available);
    // More than available once the fee is added: refused, nothing held.
    const tooMuch = await c.post('/v1/payout_intents', payoutBody({ amount: String(available - 2674n) }));
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error.code).toBe('insufficient_balance');
    expect(BigInt((await balanceOf(c)).available)).toBe(available);

    const po = await createPayout(c, { amount: '10000' });
    expect(await balanceOf(c)).toMatchObject({ available: String(available - 12675n), reserved: '12675' });
    const held = await txnsOf(c, po.id);
    expect(held.map((t) => [t.type, t.amount]).sort()).toEqual([
      ['payout', '-10000'],
      ['payout_fee', '-2675'],
    ]);
    const cancelled = await c.post(`/v1/payout_intents/${po.id}/cancel`, {});
    expect(cancelled.status).toBe(202);
    expect(await balanceOf(c)).toMatchObject({ available: String(available), reserved: '0' });
    const all = await txnsOf(c, po.id);
    expect(all.map((t) => [t.type, t.amount]).sort()).toEqual([
      ['payout', '-10000'],
      ['payout_fee', '-2675'],
      ['payout_fee', '2675'],
      ['payout_reversal', '10000'],
    ]);
  });

  test('a succeeded payout pays its fee out of reserved; a failed one gives it back', async () => {
    const available = BigInt((await balanceOf(c)).available);
    const ok = await createPayout(c, { amount: '1000' });
    await approvePayout(c, ok.id);
    expect((await c.post(`/v1/test_helpers/payout_intents/${ok.id}/succeed`, {})).status).toBe(200);
    expect(await balanceOf(c)).toMatchObject({ available: String(available - 3675n), reserved: '0' });
    const ko = await createPayout(c, { amount: '1000' });
    await approvePayout(c, ko.id);
    expect((await c.post(`/v1/test_helpers/payout_intents/${ko.id}/fail`, {})).status).toBe(200);
    expect(await balanceOf(c)).toMatchObject({ available: String(available - 3675n), reserved: '0' });
  });

  test('a refund does not return the fee', async () => {
    const p = await succeededPromptPay(c, '10000'); // fee 165, tax 12
    const before = BigInt((await balanceOf(c)).available);
    const r = await createRefund(c, { payment_intent: p.id });
    expect(r.amount).toBe('10000');
    expect(BigInt((await balanceOf(c)).available)).toBe(before - 10000n);
    expect((await txnsOf(c, r.id)).map((t) => [t.type, t.amount])).toEqual([['refund', '-10000']]);
    expect((await txnsOf(c, p.id)).find((t) => t.type === 'payment_fee').amount).toBe('-177');
  });

  test('the sum of net over the balance transactions is the available balance', async () => {
    let sum = 0n;
    let cursor: string | null = null;
    do {
      const res: { body: any } = await c.get(`/v1/balance_transactions?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      for (const t of res.body.data) sum += BigInt(t.net);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(sum).toBe(BigInt((await balanceOf(c)).available));
    expect((await srv.app.ledger.verify()).mismatches).toEqual([]);
  });
});

describe('without a fee schedule', () => {
  test('payments, payouts and topups move the balance exactly as before', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const topup = await settledTopup(c, '100000');
    const p = await succeededPromptPay(c, '50000');
    const po = await createPayout(c, { amount: '1000' });
    expect(await balanceOf(c)).toMatchObject({ available: '149000', reserved: '1000' });
    expect((await txnsOf(c, topup.id)).map((t) => [t.type, t.amount])).toEqual([['topup', '100000']]);
    expect((await txnsOf(c, p.id)).map((t) => [t.type, t.amount])).toEqual([['payment', '50000']]);
    expect((await txnsOf(c, po.id)).map((t) => [t.type, t.amount])).toEqual([['payout', '-1000']]);
    expect((await c.gql('{ feeSchedule { taxBps } }')).body.data).toEqual({ feeSchedule: null });
  });

  test('filters: type, currency, created range; unknown type is 400; another merchant sees nothing', async () => {
    const c = await srv.merchant(undefined, 'test');
    const types = await c.get('/v1/balance_transactions?type=topup');
    expect(types.status).toBe(200);
    expect(types.body.data.length).toBeGreaterThan(0);
    expect(types.body.data.every((t: any) => t.type === 'topup')).toBe(true);
    expect((await c.get('/v1/balance_transactions?currency=USD')).body.data).toEqual([]);
    expect((await c.get('/v1/balance_transactions?created_lt=2000-01-01T00:00:00Z')).body.data).toEqual([]);
    const bad = await c.get('/v1/balance_transactions?type=bogus');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    const other = await srv.merchant(undefined, 'test', { fund: false });
    expect((await other.get(`/v1/balance_transactions/${types.body.data[0].id}`)).status).toBe(404);
  });

  test('GraphQL: balanceTransactions, balanceTransaction(id) and PaymentIntent.balanceTransactions', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const p = await succeededPromptPay(c, '700');
    const res = await c.gql(
      `query($id: ID!) { balanceTransactions(first: 5, filter: { type: [PAYMENT] }) { nodes { id type amount fee net status source { type id } } pageInfo { hasNextPage } }
         paymentIntent(id: $id) { balanceTransactions { id type amount } } }`,
      { id: p.id },
    );
    expect(res.body.errors).toBeUndefined();
    const [node] = res.body.data!.balanceTransactions.nodes;
    expect(node).toMatchObject({ type: 'PAYMENT', amount: '700', fee: '0', net: '700', status: 'AVAILABLE', source: { type: 'payment_intent', id: p.id } });
    expect(res.body.data!.paymentIntent.balanceTransactions).toEqual([{ id: node.id, type: 'PAYMENT', amount: '700' }]);
    const one = await c.gql('query($id: ID!) { balanceTransaction(id: $id) { id net } }', { id: node.id });
    expect(one.body.data!.balanceTransaction).toEqual({ id: node.id, net: '700' });
  });
});
