/**
 * The refunds of one payment never add up to more than its amount, whatever races: 30
 * partial refunds sent at once (in process, on SQLite and MariaDB; and split across two
 * gateway processes on MariaDB, where only the payment row's lock and compare-and-set
 * order them). A failed refund gives its amount back exactly once, also when the test
 * helper and the provider (both processes' schedulers) race to fail it. The ledger
 * verifies after each.
 */
import { randomUUID } from 'node:crypto';
import { ledgerVerifyCli, startProcess, startServer, TestServer } from '../helpers/server';
import { describeIf, NEEDS_MYSQL, usingMysql } from '../helpers/skip';
import { Client, eventually } from '../helpers/client';
import { amountRefunded, balanceOf, createRefund, postRefund, succeededPayment } from '../helpers/fixtures';

/** 30 amounts between 150 and 349 (sum 7,455): more than a 5,000 payment can take. */
const AMOUNTS = Array.from({ length: 30 }, (_, i) => 150 + ((i * 37) % 200));

/**
 * Sends the 30 refunds of `paymentId` at once through `clients` (round robin; every other one
 * with an Idempotency-Key) and checks the outcome: the accepted ones sum to at most the
 * payment's amount and equal its amount_refunded, every other one is 422
 * refund_exceeds_payment and would not have fitted even at the end.
 */
async function thirtyAtOnce(clients: Client[], paymentId: string, paymentAmount: bigint): Promise<{ accepted: number; sum: bigint }> {
  const results = await Promise.all(
    AMOUNTS.map((amount, i) =>
      postRefund(clients[i % clients.length], { payment_intent: paymentId, amount: String(amount) }, i % 2 ? randomUUID() : undefined).then((res) => ({
        amount: BigInt(amount),
        res,
      })),
    ),
  );
  const accepted = results.filter((r) => r.res.status === 201);
  const refused = results.filter((r) => r.res.status !== 201);
  const sum = accepted.reduce((s, r) => s + r.amount, 0n);
  expect(sum).toBeLessThanOrEqual(paymentAmount);
  expect(accepted.length).toBeGreaterThan(0);
  expect(refused.length).toBeGreaterThan(0);
  for (const r of refused) {
    expect({ status: r.res.status, code: r.res.body?.error?.code }).toEqual({ status: 422, code: 'refund_exceeds_payment' });
    expect(r.amount).toBeGreaterThan(paymentAmount - sum);
  }
  expect(await amountRefunded(clients[0], paymentId)).toBe(sum.toString());
  const listed = (await clients[0].get(`/v1/refunds?payment_intent=${paymentId}&limit=100`)).body.data;
  expect(listed.map((r: any) => r.id).sort()).toEqual(accepted.map((r) => r.res.body.id).sort());
  return { accepted: accepted.length, sum };
}

describe('in one process', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv?.close();
  });

  test('30 parallel partial refunds of one 5,000 payment: the accepted ones sum to at most 5,000, the rest are refund_exceeds_payment', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const p = await succeededPayment(c, '5000');
    const { sum } = await thirtyAtOnce([c], p.id, 5000n);
    expect(await balanceOf(c)).toEqual({ available: (5000n - sum).toString(), pending: '0', reserved: sum.toString() });
    expect(await srv.app.ledger.verify()).toMatchObject({ mismatches: [] });
    const { code, report } = await ledgerVerifyCli(srv.database);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
  });

  test('failing refunds while new ones are created: the sum of the refunds that have not failed never passes the amount', async () => {
    const c = await srv.merchant();
    const p = await succeededPayment(c, '5000');
    const first = await Promise.all(Array.from({ length: 10 }, () => createRefund(c, { payment_intent: p.id, amount: '500' })));
    const results = await Promise.all([
      ...first.map((r) => c.post(`/v1/test_helpers/refunds/${r.id}/fail`)),
      ...Array.from({ length: 20 }, () => postRefund(c, { payment_intent: p.id, amount: '500' })),
    ]);
    for (const r of results.slice(0, 10)) expect(r.status).toBe(200);
    const created = results.slice(10).filter((r) => r.status === 201);
    for (const r of results.slice(10).filter((x) => x.status !== 201)) expect(r.body.error.code).toBe('refund_exceeds_payment');
    expect(created.length).toBeLessThanOrEqual(10);
    expect(await amountRefunded(c, p.id)).toBe(String(created.length * 500));
    expect(await srv.app.ledger.verify()).toMatchObject({ mismatches: [] });
  });
});

describeIf(usingMysql(), NEEDS_MYSQL)('two gateway processes on one MariaDB', () => {
  let srv: TestServer;
  let other: Awaited<ReturnType<typeof startProcess>>;

  beforeAll(async () => {
    srv = await startServer();
    // The other process's refund provider settles on its own 30 ms after a create (its scheduler runs every 50 ms).
    other = await startProcess(srv.database, { SIMULATED_SETTLE_MS: '30' });
  }, 60000);
  afterAll(async () => {
    await other?.stop();
    await srv?.close();
  });

  test('30 parallel partial refunds split across both processes: the accepted ones sum to at most the amount; the ledger verifies', async () => {
    const here = await srv.merchant(undefined, 'test', { fund: false });
    const there = here.withBase(other.url);
    const p = await succeededPayment(here, '5000');
    const started = Date.now();
    const { sum, accepted } = await thirtyAtOnce([here, there], p.id, 5000n);
    process.stdout.write(`[refund-concurrency] 30 refunds across 2 processes: ${accepted} accepted (sum ${sum}) in ${Date.now() - started} ms\n`);
    // The other process's provider settles its refunds (succeeded: out of reserved); the held amount never comes back.
    const b = await balanceOf(there);
    expect(b.available).toBe((5000n - sum).toString());
    expect(BigInt(b.reserved)).toBeLessThanOrEqual(sum);
    const { code, report } = await ledgerVerifyCli(srv.database);
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, mismatches: [] });
  });

  test("a failed refund gives its amount back once: test helpers in both processes race both schedulers' provider", async () => {
    const here = await srv.merchant(undefined, 'test', { fund: false });
    const there = here.withBase(other.url);
    const p = await succeededPayment(here, '5000');
    // 4001 is a magic amount: the simulated provider fails it (refund_declined).
    const refunds = await Promise.all(Array.from({ length: 8 }, () => createRefund(there, { payment_intent: p.id, amount: '4001' }).catch(() => null)));
    const made = refunds.filter((r): r is any => r !== null);
    expect(made).toHaveLength(1);
    for (let round = 0; round < 6; round++) {
      const r = round === 0 ? made[0] : await createRefund(round % 2 ? there : here, { payment_intent: p.id, amount: '4001' });
      // Created here, the refund has no settle_at; the helpers race each other. Created there, both schedulers join in.
      const answers = await Promise.all([
        here.post(`/v1/test_helpers/refunds/${r.id}/fail`),
        there.post(`/v1/test_helpers/refunds/${r.id}/fail`),
        here.post(`/v1/test_helpers/refunds/${r.id}/fail`),
        there.post(`/v1/test_helpers/refunds/${r.id}/fail`),
      ]);
      for (const a of answers) expect([200, 422]).toContain(a.status);
      const settled = await eventually(async () => {
        const now = (await here.get(`/v1/refunds/${r.id}`)).body;
        return now.status === 'failed' && now;
      });
      expect(settled.status).toBe('failed');
      const rows: any[] = await srv.app.db.ds.query('SELECT COUNT(*) AS n FROM ledger_entries WHERE source_id = ? AND entry_type = ? AND bucket = ?', [
        r.id,
        'refund_released',
        'available',
      ]);
      expect(Number(rows[0].n)).toBe(1);
      expect(await balanceOf(here)).toEqual({ available: '5000', pending: '0', reserved: '0' });
      expect(await amountRefunded(here, p.id)).toBe('0');
    }
    const { code, report } = await ledgerVerifyCli(srv.database);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
  });
});
