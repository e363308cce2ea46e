/**
 * Races split across two gateway processes sharing one MariaDB: the 40-payout race, approve || cancel, merchant_reference and Idempotency-Key
 * dedup; the in-test server plus a separately spawned OS process. Only MySQL/MariaDB
 * has row locks shared between processes; SQLite is single-process by design (src/db/db.ts).
 */
import { randomUUID } from 'node:crypto';
import { ledgerVerifyCli, startServer, startProcess, TestServer } from '../helpers/server';
import { describeIf, NEEDS_MYSQL, usingMysql } from '../helpers/skip';
import { payoutBody, ref } from '../helpers/client';
import { balanceOf } from '../helpers/fixtures';

const mysqlOnly = describeIf(usingMysql(), NEEDS_MYSQL);

mysqlOnly('two gateway processes on one MariaDB', () => {
  let srv: TestServer;
  let other: Awaited<ReturnType<typeof startProcess>>;
  const timings: string[] = [];

  beforeAll(async () => {
    srv = await startServer();
    other = await startProcess(srv.database);
  }, 60000);
  afterAll(async () => {
    process.stdout.write(`[ledger-two-process] ${timings.join('; ')}\n`);
    await other?.stop();
    await srv?.close();
  });

  const balance = balanceOf;

  test('balance 100, 40 concurrent payouts of 10 split across both processes: exactly 10 created', async () => {
    const here = await srv.merchant(undefined, 'test', { fund: false });
    await srv.fund(here, 'THB', '100');
    const there = here.withBase(other.url);
    expect(await balance(there)).toEqual({ available: '100', pending: '0', reserved: '0' });

    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? here : there).post('/v1/payout_intents', payoutBody({ amount: '10' })).then((r) => ({ via: i % 2 === 0 ? 'here' : 'there', ...r })),
      ),
    );
    timings.push(`40 payouts across 2 processes: ${Date.now() - started} ms`);

    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(10);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('insufficient_balance');
    }
    timings.push(
      `created via this process ${created.filter((r) => r.via === 'here').length}, via the other ${created.filter((r) => r.via === 'there').length}`,
    );
    expect(await balance(here)).toEqual({ available: '0', pending: '0', reserved: '100' });
    expect(await balance(there)).toEqual({ available: '0', pending: '0', reserved: '100' });
    expect((await here.get('/v1/payout_intents?limit=100')).body.data).toHaveLength(10);

    const { code, report } = await ledgerVerifyCli(srv.database);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
  });

  test('approve in one process || cancel in the other: the reserve is released at most once', async () => {
    const here = await srv.merchant(undefined, 'test', { fund: false });
    await srv.fund(here, 'THB', '100');
    const there = here.withBase(other.url);
    for (let i = 0; i < 10; i++) {
      const p = (await here.post('/v1/payout_intents', payoutBody({ amount: '10' }))).body;
      const [approve, cancel, fail] = await Promise.all([
        (i % 2 ? here : there).post(`/v1/payout_intents/${p.id}/approve`, {}),
        (i % 2 ? there : here).post(`/v1/payout_intents/${p.id}/cancel`, {}),
        there.post(`/v1/test_helpers/payout_intents/${p.id}/fail`, {}),
      ]);
      expect([approve.status, cancel.status].filter((s) => s === 202)).toHaveLength(1);
      for (const r of [approve, cancel, fail]) expect(r.status).toBeLessThan(500);
      const status = (await there.get(`/v1/payout_intents/${p.id}`)).body.status;
      if (status === 'processing') expect((await here.post(`/v1/test_helpers/payout_intents/${p.id}/fail`, {})).status).toBe(200);
      const rows: any[] = await srv.app.db.ds.query('SELECT COUNT(*) AS n FROM ledger_entries WHERE source_id = ? AND entry_type = ? AND bucket = ?', [
        p.id,
        'payout_released',
        'reserved',
      ]);
      expect(Number(rows[0].n)).toBe(1);
      expect(await balance(here)).toEqual({ available: '100', pending: '0', reserved: '0' });
    }
  });

  test('topups with one merchant_reference sent to both processes: exactly one 201', async () => {
    const here = await srv.merchant(undefined, 'test', { fund: false });
    const there = here.withBase(other.url);
    const body = { amount: '10', currency: 'THB', country: 'TH', merchant_reference: ref('tu') };
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? here : there).post('/v1/topup_intents', body, { idempotencyKey: randomUUID() })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.error.code).toBe('duplicate_merchant_reference');
  });

  test('one Idempotency-Key, 20 identical requests split across both processes: one payout, every answer it or a 409', async () => {
    const here = await srv.merchant();
    const there = here.withBase(other.url);
    const key = randomUUID();
    const body = payoutBody();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? here : there).post('/v1/payout_intents', body, { idempotencyKey: key })));
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(created.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    for (const r of results) {
      if (r.status === 201) continue;
      expect({ status: r.status, code: r.body.error?.code }).toEqual({ status: 409, code: 'idempotency_conflict' });
    }
    // Replays (once the first has finished) carry the stored body byte for byte.
    const first = created.find((r) => r.headers.get('idempotent-replayed') === null)!;
    for (const r of created) expect(r.text).toBe(first.text);
    const list = (await there.get(`/v1/payout_intents?merchant_reference=${encodeURIComponent(body.merchant_reference as string)}`)).body.data;
    expect(list.map((p: any) => p.id)).toEqual([...ids]);
  });

  test('ledger verify passes at the end', async () => {
    const { code, report, stderr } = await ledgerVerifyCli(srv.database);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, mismatches: [] });
  });
});
