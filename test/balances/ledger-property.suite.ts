/**
 * Property-based ledger test: random sequences of topups, payments, payouts,
 * approvals, cancels, successes and failures, all over
 * real HTTP, checked step by step against a model of what every balance should be; after
 * each run the merchant's balances are compared to the model and the ledger verified (the
 * check `cli ledger verify` runs, in the server's process); after all runs `cli ledger verify`
 * itself must exit 0 with ok:true over every run's records (once: each call is a process start
 * and a read of the whole ledger, about 2 s on a loaded machine). A negative test tampers with a
 * balance row and expects exit 1.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expectLedgerBalanced, ledgerVerifyCli, startServer, TestServer, TestDatabase } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';
import { postPromptPay } from '../helpers/fixtures';
import { expectError } from '../helpers/errors';
import { scaled } from '../helpers/scale';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  process.stdout.write(`[ledger-property] ${srv.database.kind}: ${stats.runs} runs, ${stats.ops} operations, ${stats.cliMs} ms in ledger verify CLI\n`);
  await srv.close();
});

const stats = { runs: 0, ops: 0, cliMs: 0 };
const CURRENCIES = ['THB', 'USD'] as const;
type Currency = (typeof CURRENCIES)[number];
const COUNTRY: Record<Currency, string> = { THB: 'TH', USD: 'US' };
const MAX30 = 10n ** 30n - 1n;

/** Payments run as PromptPay in THB: the simulated catalogue serves 100 to 20,000,000 satang. */
const createPayment = (c: Client, amount: bigint) => postPromptPay(c, amount);

/** The shared `cli ledger verify` runner, timed for the summary line. */
async function timedLedgerVerify(database: TestDatabase) {
  const started = Date.now();
  try {
    return await ledgerVerifyCli(database);
  } finally {
    stats.cliMs += Date.now() - started;
  }
}

// ---- operations ----

type Op =
  | { kind: 'topup'; amount: bigint; currency: Currency; outcome: 'succeed' | 'fail' }
  | { kind: 'payment'; amount: bigint; outcome: 'succeed' | 'fail' }
  | { kind: 'payout'; amount: bigint; currency: Currency }
  | { kind: 'repeat' | 'approve' | 'cancel' | 'succeed' | 'fail' | 'race'; pick: number }
  | { kind: 'burst'; amounts: bigint[]; currency: Currency };

const amountArb = fc.oneof(
  { arbitrary: fc.bigInt({ min: 1n, max: 120n }), weight: 12 },
  { arbitrary: fc.bigInt({ min: 1n, max: MAX30 }), weight: 1 },
  { arbitrary: fc.constant(MAX30), weight: 1 },
);
const currencyArb = fc.constantFrom(...CURRENCIES);
const outcomeArb = fc.constantFrom('succeed' as const, 'fail' as const);
const pickArb = fc.nat({ max: 1000 });

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('topup' as const),
      amount: amountArb,
      currency: currencyArb,
      outcome: fc.constantFrom('succeed' as const, 'succeed' as const, 'fail' as const),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('payment' as const),
      amount: fc.bigInt({ min: 100n, max: 20_000_000n }),
      outcome: outcomeArb,
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('payout' as const), amount: amountArb, currency: currencyArb }), weight: 5 },
  {
    arbitrary: fc.record({
      kind: fc.constantFrom('repeat' as const, 'approve' as const, 'cancel' as const, 'succeed' as const, 'fail' as const, 'race' as const),
      pick: pickArb,
    }),
    weight: 8,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('burst' as const),
      amounts: fc.array(fc.bigInt({ min: 1n, max: 60n }), { minLength: 2, maxLength: 8 }),
      currency: currencyArb,
    }),
    weight: 1,
  },
);

// ---- the model ----

interface ModelPayout {
  id: string;
  reference: string;
  amount: bigint;
  currency: Currency;
  status: string;
}

class Model {
  available = new Map<Currency, bigint>(CURRENCIES.map((c) => [c, 0n]));
  reserved = new Map<Currency, bigint>(CURRENCIES.map((c) => [c, 0n]));
  /** Currencies that have a balance row (any movement ever). */
  touched = new Set<Currency>();
  payouts: ModelPayout[] = [];

  add(currency: Currency, bucket: 'available' | 'reserved', delta: bigint): void {
    const map = this[bucket];
    map.set(currency, map.get(currency)! + delta);
    this.touched.add(currency);
  }
}

function pick(model: Model, n: number): ModelPayout | undefined {
  return model.payouts.length === 0 ? undefined : model.payouts[n % model.payouts.length];
}

function expectStatus(res: { status: number; body: any }, status: number, context: string): void {
  if (res.status !== status) throw new Error(`${context}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
}

/** Applies the effect of a payout transition that the server reports as done. */
function applyPayout(model: Model, p: ModelPayout, to: string): void {
  if (to === 'cancelled' || to === 'failed') {
    model.add(p.currency, 'reserved', -p.amount);
    model.add(p.currency, 'available', p.amount);
  } else if (to === 'succeeded') {
    model.add(p.currency, 'reserved', -p.amount);
  }
  p.status = to;
}

async function run(c: Client, model: Model, op: Op): Promise<void> {
  const ctx = JSON.stringify(op, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  switch (op.kind) {
    case 'topup': {
      const t = await c.post(
        '/v1/topup_intents',
        { amount: op.amount.toString(), currency: op.currency, country: COUNTRY[op.currency], merchant_reference: ref('tu') },
        { idempotencyKey: randomUUID() },
      );
      expectStatus(t, 201, ctx);
      const s = await c.post(`/v1/test_helpers/topup_intents/${t.body.id}/${op.outcome}`, {});
      expectStatus(s, 200, ctx);
      if (op.outcome === 'succeed') model.add(op.currency, 'available', op.amount);
      return;
    }
    case 'payment': {
      const created = await createPayment(c, op.amount);
      expectStatus(created, 201, ctx);
      let status: string = created.body.status;
      if (status !== 'succeeded' && status !== 'failed') {
        const s = await c.post(`/v1/test_helpers/payment_intents/${created.body.id}/${op.outcome}`, {});
        expectStatus(s, 200, ctx);
        status = s.body.status;
      }
      if (status === 'succeeded') model.add('THB', 'available', op.amount);
      return;
    }
    case 'payout': {
      const reference = ref('po');
      const res = await c.post(
        '/v1/payout_intents',
        payoutBody({ amount: op.amount.toString(), currency: op.currency, country: COUNTRY[op.currency], merchant_reference: reference }),
      );
      model.touched.add(op.currency); // a refused payout may still leave a zero balance row behind
      if (op.amount <= model.available.get(op.currency)!) {
        expectStatus(res, 201, ctx);
        model.add(op.currency, 'available', -op.amount);
        model.add(op.currency, 'reserved', op.amount);
        model.payouts.push({ id: res.body.id, reference, amount: op.amount, currency: op.currency, status: 'requires_approval' });
      } else {
        expectError(res, 422, 'insufficient_balance', { context: ctx });
      }
      return;
    }
    case 'repeat': {
      const p = pick(model, op.pick);
      if (!p) return;
      const res = await c.post(
        '/v1/payout_intents',
        payoutBody({ amount: '1', currency: p.currency, country: COUNTRY[p.currency], merchant_reference: p.reference }),
      );
      expectStatus(res, 200, ctx);
      if (res.body.id !== p.id || res.body.status !== p.status) throw new Error(`${ctx}: repeat returned ${JSON.stringify(res.body)}`);
      return;
    }
    case 'approve': {
      const p = pick(model, op.pick);
      if (!p) return;
      const res = await c.post(`/v1/payout_intents/${p.id}/approve`, {});
      if (p.status === 'requires_approval') {
        expectStatus(res, 202, ctx);
        applyPayout(model, p, 'processing');
      } else expectError(res, 422, 'invalid_state', { context: ctx });
      return;
    }
    case 'cancel': {
      const p = pick(model, op.pick);
      if (!p) return;
      const res = await c.post(`/v1/payout_intents/${p.id}/cancel`, { reason: 'property test' });
      if (p.status === 'requires_approval') {
        expectStatus(res, 202, ctx);
        applyPayout(model, p, 'cancelled');
      } else expectError(res, 422, 'approval_required', { context: ctx });
      return;
    }
    case 'succeed':
    case 'fail': {
      const p = pick(model, op.pick);
      if (!p) return;
      const res = await c.post(`/v1/test_helpers/payout_intents/${p.id}/${op.kind}`, {});
      if (p.status === 'processing') {
        expectStatus(res, 200, ctx);
        applyPayout(model, p, op.kind === 'succeed' ? 'succeeded' : 'failed');
      } else expectError(res, 422, 'invalid_state', { context: ctx });
      return;
    }
    case 'race': {
      // approve, cancel and a provider failure at once; the server's answers say who won.
      const p = pick(model, op.pick);
      if (!p) return;
      const [approve, cancel, fail] = await Promise.all([
        c.post(`/v1/payout_intents/${p.id}/approve`, {}),
        c.post(`/v1/payout_intents/${p.id}/cancel`, {}),
        c.post(`/v1/test_helpers/payout_intents/${p.id}/fail`, {}),
      ]);
      if (approve.status === 202 && cancel.status === 202) throw new Error(`${ctx}: approve and cancel both won`);
      if (cancel.status === 202 && fail.status === 200) throw new Error(`${ctx}: cancel and fail both won`);
      if (approve.status === 202) applyPayout(model, p, 'processing');
      if (cancel.status === 202) applyPayout(model, p, 'cancelled');
      if (fail.status === 200) {
        if (p.status !== 'processing') throw new Error(`${ctx}: fail won on a ${p.status} payout`);
        applyPayout(model, p, 'failed');
      }
      for (const r of [approve, cancel, fail]) if (r.status >= 500) throw new Error(`${ctx}: ${r.status} ${r.text}`);
      const server = (await c.get(`/v1/payout_intents/${p.id}`)).body.status;
      if (server !== p.status) throw new Error(`${ctx}: server says ${server}, model says ${p.status}`);
      return;
    }
    case 'burst': {
      const before = model.available.get(op.currency)!;
      const refs = op.amounts.map(() => ref('po'));
      const results = await Promise.all(
        op.amounts.map((amount, i) =>
          c.post(
            '/v1/payout_intents',
            payoutBody({ amount: amount.toString(), currency: op.currency, country: COUNTRY[op.currency], merchant_reference: refs[i] }),
          ),
        ),
      );
      model.touched.add(op.currency);
      let taken = 0n;
      results.forEach((res, i) => {
        if (res.status === 201) {
          taken += op.amounts[i];
          model.add(op.currency, 'available', -op.amounts[i]);
          model.add(op.currency, 'reserved', op.amounts[i]);
          model.payouts.push({
            id: res.body.id,
            reference: refs[i],
            amount: op.amounts[i],
            currency: op.currency,
            status: 'requires_approval',
          });
        } else {
          expectError(res, 422, 'insufficient_balance', { context: ctx });
        }
      });
      if (taken > before) throw new Error(`${ctx}: reserved ${taken} out of ${before}`);
      // Available only fell during the burst, so every refusal must exceed what is left.
      const left = before - taken;
      results.forEach((res, i) => {
        if (res.status !== 201 && op.amounts[i] <= left) throw new Error(`${ctx}: refused ${op.amounts[i]} although ${left} is still available`);
      });
      return;
    }
  }
}

async function expectBalancesMatch(c: Client, model: Model, context: string): Promise<void> {
  const res = await c.get('/v1/balances');
  expectStatus(res, 200, context);
  const actual = res.body.data.map((b: any) => `${b.currency} ${b.available}/${b.pending}/${b.reserved}`);
  const expected = CURRENCIES.filter((cur) => model.touched.has(cur) || model.available.get(cur)! !== 0n).map(
    (cur) => `${cur} ${model.available.get(cur)}/0/${model.reserved.get(cur)}`,
  );
  // A refused payout in a never-credited currency may or may not leave an all-zero row: ignore all-zero rows on both sides.
  const nonZero = (xs: string[]) => xs.filter((x) => !/ 0\/0\/0$/.test(x));
  if (JSON.stringify(nonZero(actual)) !== JSON.stringify(nonZero(expected))) {
    throw new Error(`${context}: balances ${JSON.stringify(actual)} but model ${JSON.stringify(expected)}`);
  }
  for (const b of res.body.data) {
    for (const k of ['available', 'pending', 'reserved']) if (BigInt(b[k]) < 0n) throw new Error(`${context}: negative ${k} ${JSON.stringify(b)}`);
  }
}

async function expectPayoutsMatch(c: Client, model: Model): Promise<void> {
  const seen = new Map<string, string>();
  for (let cursor: string | null = null; ;) {
    const res: any = await c.get(`/v1/payout_intents?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const p of res.body.data) seen.set(p.id, p.status);
    if (!res.body.has_more) break;
    cursor = res.body.next_cursor;
  }
  expect(seen.size).toBe(model.payouts.length);
  for (const p of model.payouts) expect(`${p.id} ${seen.get(p.id)}`).toBe(`${p.id} ${p.status}`);
}

test('random operation sequences keep every balance equal to its ledger and to the model', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 30 }), async (ops) => {
      const c = await srv.merchant(undefined, 'test', { fund: false });
      const model = new Model();
      for (const [i, op] of ops.entries()) {
        await run(c, model, op);
        await expectBalancesMatch(c, model, `after op ${i}`);
      }
      stats.runs++;
      stats.ops += ops.length;
      await expectPayoutsMatch(c, model);
      await expectLedgerBalanced(srv);
    }),
    { numRuns: scaled(10), endOnFailure: true },
  );
  const cli = await timedLedgerVerify(srv.database);
  if (cli.code !== 0 || cli.report?.ok !== true) throw new Error(`ledger verify: exit ${cli.code} ${JSON.stringify(cli.report)} ${cli.stderr}`);
}, 120000);

test('ledger verify exits 1 and names the bucket when a balance row is tampered with', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  await srv.fund(c, 'THB', '500');
  const ok = await timedLedgerVerify(srv.database);
  expect(ok.code).toBe(0);
  expect(ok.report.ok).toBe(true);

  await srv.app.db.ds.query('UPDATE balances SET available = ? WHERE merchant_id = ? AND currency = ?', ['501', c.merchantId, 'THB']);
  try {
    const bad = await timedLedgerVerify(srv.database);
    expect(bad.code).toBe(1);
    expect(bad.report.ok).toBe(false);
    expect(bad.report.mismatches).toEqual([
      { merchant_id: c.merchantId, environment: 'test', currency: 'THB', bucket: 'available', balance: '501', ledger_sum: '500' },
    ]);
  } finally {
    await srv.app.db.ds.query('UPDATE balances SET available = ? WHERE merchant_id = ? AND currency = ?', ['500', c.merchantId, 'THB']);
  }

  // A ledger row without its balance movement is caught too.
  await srv.app.db.ds.query(
    'INSERT INTO ledger_entries (id, merchant_id, environment, currency, bucket, amount, entry_type, source_type, source_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ['le_tampered', c.merchantId, 'test', 'THB', 'reserved', '3', 'tampered', 'topup_intent', 'tu_tampered', Date.now()],
  );
  try {
    const bad = await timedLedgerVerify(srv.database);
    expect(bad.code).toBe(1);
    expect(bad.report.mismatches).toEqual([
      { merchant_id: c.merchantId, environment: 'test', currency: 'THB', bucket: 'reserved', balance: '0', ledger_sum: '3' },
    ]);
  } finally {
    await srv.app.db.ds.query('DELETE FROM ledger_entries WHERE id = ?', ['le_tampered']);
  }
  expect((await timedLedgerVerify(srv.database)).code).toBe(0);
}, 60000);
