/**
 * Ledger under concurrency, with real parallel HTTP requests:
 * no lost update, no negative available balance, no double release. On MariaDB this
 * exercises the row locks; on SQLite the write queue.
 */
import { randomUUID } from 'node:crypto';
import { ledgerVerifyCli, startServer, TestServer } from '../helpers/server';
import { payoutBody, ref } from '../helpers/client';
import { approvePayout, balanceOf, createPayout, fundedMerchant } from '../helpers/fixtures';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  if (timings.length > 0) process.stdout.write(`[ledger-concurrency] ${srv.database.kind}: ${timings.join('; ')}\n`);
  await srv.close();
});

const timings: string[] = [];

const balance = balanceOf;

/** How many times each kind of movement hit this payout: one per transition (counted on the `reserved` bucket). */
async function movements(payoutId: string): Promise<{ reserved: number; released: number; paid: number; rows: number }> {
  const rows: any[] = await srv.app.db.ds.query('SELECT entry_type, bucket FROM ledger_entries WHERE source_id = ?', [payoutId]);
  const count = (type: string) => rows.filter((r) => r.entry_type === type && r.bucket === 'reserved').length;
  return { reserved: count('payout_reserved'), released: count('payout_released'), paid: count('payout_paid'), rows: rows.length };
}

describe('40 concurrent payouts of 10 against a balance of 100', () => {
  test.each([
    ['without Idempotency-Key', false],
    ['each with its own Idempotency-Key', true],
  ])('%s: exactly 10 are created, 30 get insufficient_balance, available ends at 0', async (label, withKeys) => {
    const c = await fundedMerchant(srv, '100');
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 40 }, () => c.post('/v1/payout_intents', payoutBody({ amount: '10' }), withKeys ? { idempotencyKey: randomUUID() } : {})),
    );
    timings.push(`40 payouts ${label}: ${Date.now() - started} ms`);

    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(created).toHaveLength(10);
    expect(refused).toHaveLength(30);
    for (const r of refused) {
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('insufficient_balance');
    }
    expect(await balance(c)).toEqual({ available: '0', pending: '0', reserved: '100' });

    // Refusals created nothing: 10 payouts, 10 events, 20 ledger rows.
    const list = await c.get('/v1/payout_intents?limit=100');
    expect(list.body.data.map((p: any) => p.id).sort()).toEqual(created.map((r) => r.body.id).sort());
    const [{ n: events }] = await srv.app.db.ds.query('SELECT COUNT(*) AS n FROM events WHERE merchant_id = ? AND type = ?', [
      c.merchantId,
      'payout_intent.created',
    ]);
    expect(Number(events)).toBe(10);
    const [{ n: rows }] = await srv.app.db.ds.query('SELECT COUNT(*) AS n FROM ledger_entries WHERE merchant_id = ? AND entry_type = ?', [
      c.merchantId,
      'payout_reserved',
    ]);
    expect(Number(rows)).toBe(20);
  });

  test('concurrent credits and reservations: no lost update', async () => {
    const c = await fundedMerchant(srv, '100');
    const topups = await Promise.all(
      Array.from({ length: 5 }, () =>
        c.post('/v1/topup_intents', { amount: '10', currency: 'THB', country: 'TH', merchant_reference: ref('tu') }, { idempotencyKey: randomUUID() }),
      ),
    );
    const ops: Promise<{ kind: string; status: number; body: any }>[] = [];
    for (let i = 0; i < 30; i++) {
      ops.push(c.post('/v1/payout_intents', payoutBody({ amount: '10' })).then((r) => ({ kind: 'payout', ...r })));
      if (i < 5) ops.push(c.post(`/v1/test_helpers/topup_intents/${topups[i].body.id}/succeed`, {}).then((r) => ({ kind: 'credit', ...r })));
    }
    const results = await Promise.all(ops);
    expect(results.filter((r) => r.kind === 'credit').every((r) => r.status === 200)).toBe(true);
    const created = results.filter((r) => r.kind === 'payout' && r.status === 201).length;
    for (const r of results.filter((x) => x.kind === 'payout' && x.status !== 201)) expect(r.body.error.code).toBe('insufficient_balance');
    expect(created).toBeGreaterThanOrEqual(10);
    expect(created).toBeLessThanOrEqual(15);
    expect(await balance(c)).toEqual({ available: String(150 - 10 * created), pending: '0', reserved: String(10 * created) });
  });

  test('the first credits of a new currency, in parallel, all land (the balance row is created once)', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const topups = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        c.post('/v1/topup_intents', { amount: String(i + 1), currency: 'EUR', country: 'DE', merchant_reference: ref('tu') }, { idempotencyKey: randomUUID() }),
      ),
    );
    const settled = await Promise.all(topups.map((t) => c.post(`/v1/test_helpers/topup_intents/${t.body.id}/succeed`, {})));
    expect(settled.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(await balance(c, 'EUR')).toEqual({ available: String((12 * 13) / 2), pending: '0', reserved: '0' });
    const rows: any[] = await srv.app.db.ds.query('SELECT id FROM balances WHERE merchant_id = ?', [c.merchantId]);
    expect(rows).toHaveLength(1);
  });

  test('parallel payouts in a currency without a balance are all refused and leave no money behind', async () => {
    const c = await fundedMerchant(srv, '100');
    const results = await Promise.all(
      Array.from({ length: 12 }, () => c.post('/v1/payout_intents', payoutBody({ amount: '1', currency: 'JPY', country: 'JP' }))),
    );
    for (const r of results) {
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('insufficient_balance');
    }
    expect((await c.get('/v1/payout_intents')).body.data).toEqual([]);
    expect(await balance(c, 'JPY')).toEqual({ available: '0', pending: '0', reserved: '0' });
  });

  test('many currencies first touched at once: parallel refused payouts are all 422 (never 5xx), then first credits racing payouts all land', async () => {
    // On MariaDB, refused payouts leave no balance row behind, so each of these requests is
    // a first touch of its currency: a locking read of a missing row that must not turn
    // into a deadlock (1213) and a 500 when 96 of them run at once.
    const c = await fundedMerchant(srv, '100');
    const currencies = ['AUD', 'CAD', 'CHF', 'GBP', 'HKD', 'NZD', 'SGD', 'KRW'];
    const refused = await Promise.all(
      currencies.flatMap((currency) => Array.from({ length: 12 }, () => c.post('/v1/payout_intents', payoutBody({ amount: '1', currency, country: 'JP' })))),
    );
    expect(refused.map((r) => r.status)).toEqual(Array(refused.length).fill(422));
    for (const r of refused) expect(r.body.error.code).toBe('insufficient_balance');
    expect((await c.get('/v1/payout_intents')).body.data).toEqual([]);
    const [{ n: entries }] = await srv.app.db.ds.query('SELECT COUNT(*) AS n FROM ledger_entries WHERE merchant_id = ? AND currency <> ?', [
      c.merchantId,
      'THB',
    ]);
    expect(Number(entries)).toBe(0);

    // Now each currency's first credit (5) races 12 more payouts of 1: the balance row is
    // created once, and every payout is either created or refused, never failed.
    const topups = await Promise.all(
      currencies.map((currency) =>
        c.post('/v1/topup_intents', { amount: '5', currency, country: 'DE', merchant_reference: ref('tu') }, { idempotencyKey: randomUUID() }),
      ),
    );
    const racing = await Promise.all([
      ...topups.map((t) =>
        c.post(`/v1/test_helpers/topup_intents/${t.body.id}/succeed`, {}).then((r) => ({ kind: 'credit', currency: t.body.currency, ...r })),
      ),
      ...currencies.flatMap((currency) =>
        Array.from({ length: 12 }, () =>
          c.post('/v1/payout_intents', payoutBody({ amount: '1', currency, country: 'JP' })).then((r) => ({ kind: 'payout', currency, ...r })),
        ),
      ),
    ]);
    expect(racing.filter((r) => r.kind === 'credit').map((r) => r.status)).toEqual(Array(currencies.length).fill(200));
    for (const r of racing.filter((x) => x.kind === 'payout' && x.status !== 201)) {
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('insufficient_balance');
    }
    for (const currency of currencies) {
      const created = racing.filter((r) => r.kind === 'payout' && r.currency === currency && r.status === 201).length;
      expect(created).toBeLessThanOrEqual(5);
      expect(await balance(c, currency)).toEqual({ available: String(5 - created), pending: '0', reserved: String(created) });
    }
    const rows: any[] = await srv.app.db.ds.query('SELECT currency FROM balances WHERE merchant_id = ? ORDER BY currency', [c.merchantId]);
    expect(rows.map((r) => r.currency)).toEqual([...currencies, 'THB'].sort());
  });

  test('two merchants and two currencies in parallel do not interfere', async () => {
    const a = await fundedMerchant(srv, '100');
    const b = await fundedMerchant(srv, '50');
    await srv.fund(a, 'USD', '30');
    const jobs = [
      ...Array.from({ length: 20 }, () => a.post('/v1/payout_intents', payoutBody({ amount: '10' })).then((r) => ['a', 'THB', r.status])),
      ...Array.from({ length: 20 }, () =>
        a.post('/v1/payout_intents', payoutBody({ amount: '10', currency: 'USD', country: 'US' })).then((r) => ['a', 'USD', r.status]),
      ),
      ...Array.from({ length: 20 }, () => b.post('/v1/payout_intents', payoutBody({ amount: '10' })).then((r) => ['b', 'THB', r.status])),
    ];
    const results = await Promise.all(jobs);
    const ok = (m: string, cur: string) => results.filter(([x, y, s]) => x === m && y === cur && s === 201).length;
    expect([ok('a', 'THB'), ok('a', 'USD'), ok('b', 'THB')]).toEqual([10, 3, 5]);
    expect(await balance(a)).toEqual({ available: '0', pending: '0', reserved: '100' });
    expect(await balance(a, 'USD')).toEqual({ available: '0', pending: '0', reserved: '30' });
    expect(await balance(b)).toEqual({ available: '0', pending: '0', reserved: '50' });
  });
});

describe('races on one payout: the reserve is released at most once', () => {
  const ROUNDS = 10;

  test('approve || cancel', async () => {
    const c = await fundedMerchant(srv, '100');
    const outcomes = { approved: 0, cancelled: 0 };
    for (let i = 0; i < ROUNDS; i++) {
      const p = (await c.post('/v1/payout_intents', payoutBody({ amount: '10' }))).body;
      // Alternate which request leaves first, so both orders are exercised.
      const send = [() => c.post(`/v1/payout_intents/${p.id}/approve`, {}), () => c.post(`/v1/payout_intents/${p.id}/cancel`, { reason: 'race' })];
      const [first, second] = i % 2 === 0 ? [send[0](), send[1]()] : [send[1](), send[0]()];
      const [approve, cancel] = i % 2 === 0 ? await Promise.all([first, second]) : (await Promise.all([first, second])).reverse();
      expect([approve.status, cancel.status].filter((s) => s === 202)).toHaveLength(1);
      const m = await movements(p.id);
      expect(m.reserved).toBe(1);
      expect(m.released).toBeLessThanOrEqual(1);
      if (approve.status === 202) {
        outcomes.approved++;
        expect(cancel.status).toBe(422);
        expect(cancel.body.error.code).toBe('approval_required');
        expect((await c.get(`/v1/payout_intents/${p.id}`)).body.status).toBe('processing');
        expect(m.released).toBe(0);
        // Settle it so the next round starts from the same balance.
        expect((await c.post(`/v1/test_helpers/payout_intents/${p.id}/succeed`, {})).status).toBe(200);
        await srv.fund(c, 'THB', '10');
      } else {
        outcomes.cancelled++;
        expect(approve.status).toBe(422);
        expect(approve.body.error.code).toBe('invalid_state');
        expect((await c.get(`/v1/payout_intents/${p.id}`)).body.status).toBe('cancelled');
        expect(m.released).toBe(1);
      }
      expect(await balance(c)).toEqual({ available: '100', pending: '0', reserved: '0' });
    }
    timings.push(`approve||cancel outcomes ${JSON.stringify(outcomes)}`);
  });

  test('approve || cancel || provider failure (test helper fail)', async () => {
    const c = await fundedMerchant(srv, '100');
    const finals: Record<string, number> = {};
    for (let i = 0; i < ROUNDS; i++) {
      const p = (await c.post('/v1/payout_intents', payoutBody({ amount: '10' }))).body;
      await Promise.all([
        c.post(`/v1/payout_intents/${p.id}/approve`, {}),
        c.post(`/v1/payout_intents/${p.id}/cancel`, {}),
        c.post(`/v1/test_helpers/payout_intents/${p.id}/fail`, {}),
        c.post(`/v1/test_helpers/payout_intents/${p.id}/fail`, {}),
      ]);
      const status = (await c.get(`/v1/payout_intents/${p.id}`)).body.status;
      finals[status] = (finals[status] ?? 0) + 1;
      const m = await movements(p.id);
      expect(m.released).toBeLessThanOrEqual(1);
      expect(m.released).toBe(status === 'cancelled' || status === 'failed' ? 1 : 0);
      if (status === 'processing') await c.post(`/v1/test_helpers/payout_intents/${p.id}/fail`, {});
      expect(await balance(c)).toEqual({ available: '100', pending: '0', reserved: '0' });
      expect((await movements(p.id)).released).toBe(1);
    }
    timings.push(`approve||cancel||fail finals ${JSON.stringify(finals)}`);
  });

  test('processing payout: cancel || fail || fail || succeed', async () => {
    const c = await fundedMerchant(srv, '100');
    for (let i = 0; i < ROUNDS; i++) {
      const p = await createPayout(c, { amount: '10' });
      await approvePayout(c, p.id);
      const [cancel, fail1, fail2, succeed] = await Promise.all([
        c.post(`/v1/payout_intents/${p.id}/cancel`, {}),
        c.post(`/v1/test_helpers/payout_intents/${p.id}/fail`, {}),
        c.post(`/v1/test_helpers/payout_intents/${p.id}/fail`, {}),
        c.post(`/v1/test_helpers/payout_intents/${p.id}/succeed`, {}),
      ]);
      expect(cancel.status).toBe(422);
      expect(cancel.body.error.code).toBe('approval_required');
      const winners = [fail1, fail2, succeed].filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      for (const r of [fail1, fail2, succeed].filter((x) => x.status !== 200)) expect(r.body.error.code).toBe('invalid_state');
      const m = await movements(p.id);
      expect(m.released + m.paid).toBe(1);
      expect(m.released).toBeLessThanOrEqual(1);
      if (winners[0] === succeed) {
        expect(await balance(c)).toEqual({ available: '90', pending: '0', reserved: '0' });
        await srv.fund(c, 'THB', '10');
      }
      expect(await balance(c)).toEqual({ available: '100', pending: '0', reserved: '0' });
    }
  });

  test('the simulated provider settling a failing payout || cancel || test helpers', async () => {
    const c = await fundedMerchant(srv, '100');
    for (let i = 0; i < ROUNDS; i++) {
      // The magic account number makes the provider fail the payout (could_not_process).
      const p = await createPayout(c, {
        amount: '10',
        recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '000555555559', holder_name: 'X' },
      });
      await approvePayout(c, p.id);
      await srv.app.db.ds.query('UPDATE payout_intents SET settle_at = ? WHERE id = ?', [Date.now() - 1, p.id]);
      const [, cancel, fail, succeed] = await Promise.all([
        srv.app.payouts.settleDue(),
        c.post(`/v1/payout_intents/${p.id}/cancel`, {}),
        c.post(`/v1/test_helpers/payout_intents/${p.id}/fail`, {}),
        c.post(`/v1/test_helpers/payout_intents/${p.id}/succeed`, {}),
      ]);
      expect(cancel.status).toBe(422);
      expect([fail.status, succeed.status].filter((s) => s === 200).length).toBeLessThanOrEqual(1);
      const final = (await c.get(`/v1/payout_intents/${p.id}`)).body;
      expect(['failed', 'succeeded']).toContain(final.status);
      const m = await movements(p.id);
      expect(m.released + m.paid).toBe(1);
      const [{ n }] = await srv.app.db.ds.query('SELECT COUNT(*) AS n FROM events WHERE resource_id = ? AND type IN (?, ?)', [
        p.id,
        'payout_intent.failed',
        'payout_intent.succeeded',
      ]);
      expect(Number(n)).toBe(1);
      if (final.status === 'succeeded') await srv.fund(c, 'THB', '10');
      expect(await balance(c)).toEqual({ available: '100', pending: '0', reserved: '0' });
    }
  });
});

describe('ledger verify', () => {
  test('stays consistent while payouts are being written', async () => {
    const c = await fundedMerchant(srv, '1000');
    let writing = true;
    const writer = (async () => {
      const started = Date.now();
      while (Date.now() - started < 3000) {
        const batch = await Promise.all(Array.from({ length: 8 }, () => c.post('/v1/payout_intents', payoutBody({ amount: '7' }))));
        await Promise.all(batch.filter((r) => r.status === 201).map((r) => c.post(`/v1/payout_intents/${r.body.id}/cancel`, {})));
      }
      writing = false;
    })();
    let checks = 0;
    const mismatches: unknown[] = [];
    while (writing) {
      const report = await srv.app.ledger.verify();
      checks++;
      mismatches.push(...report.mismatches);
      await new Promise((r) => setTimeout(r, 5));
    }
    await writer;
    timings.push(`verify under load: ${checks} checks`);
    expect(mismatches).toEqual([]);
    expect(checks).toBeGreaterThan(1);
    expect(await balance(c)).toEqual({ available: '1000', pending: '0', reserved: '0' });
  });

  test('final balances equal their ledger sums: the CLI exits 0 with ok:true', async () => {
    const { code, report, stderr } = await ledgerVerifyCli(srv.database);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.mismatches).toEqual([]);
    expect(report.balances).toBeGreaterThan(0);
    expect(report.entries).toBeGreaterThan(0);
    // No balance bucket is negative anywhere.
    const rows: any[] = await srv.app.db.ds.query('SELECT available, pending, reserved FROM balances');
    for (const r of rows) for (const k of ['available', 'pending', 'reserved']) expect(BigInt(String(r[k])) >= 0n).toBe(true);
  });
});
