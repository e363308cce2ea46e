/**
 * Seeding for `npm run bench`, in the order it runs:
 *
 *  1. `provisionMerchants`: BENCH_MERCHANTS merchants with a test key each, through the
 *     provisioning CLI (a few at a time: each is a process). The first is "big" (the payouts).
 *  2. `seed`: balances topped up through the service (a topup settled by the test helper, as
 *     test/helpers/server.ts funds); one payout and one payment created by the service; then
 *     `copyRows` copies them in bulk: BENCH_PAYOUTS payouts on the big merchant and
 *     BENCH_PAYMENTS payments spread over all merchants. A database that already holds the
 *     payouts (a DATABASE_URL kept from an earlier run) is reused as it is.
 *
 * Copies: rows are copied from one intent the service created itself (its exact shape: sealed
 * recipient account, QR next_action, fingerprints), with a new id, merchant,
 * merchant_reference, checkout token and created_at per row. One INSERT ... SELECT per 1,000
 * rows: the large columns never leave the database server. Only the intent tables are seeded:
 * the copies have no events, ledger entries or audit rows (none of the scenarios reads them;
 * `cli ledger verify` would report the payouts' holds).
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'mysql2/promise';
import { ulid } from 'ulid';
import { cli, Db } from './lifecycle';
import { FRESH, paymentBody, payoutBody } from './queries';
import { log, MERCHANTS, PAYMENTS, PAYOUTS } from './settings';

export interface Merchant {
  id: string;
  name: string;
  auth: string;
  header: string;
}

const basic = (auth: string) => `Basic ${Buffer.from(auth).toString('base64')}`;

export async function provisionMerchants(db: Db): Promise<Merchant[]> {
  log(`provisioning ${MERCHANTS} merchants`);
  const merchants: Merchant[] = [];
  const names = Array.from({ length: MERCHANTS }, (_, i) => (i === 0 ? 'bench-big' : `bench-m${i}`));
  for (let i = 0; i < names.length; i += 4) {
    const keys = await Promise.all(names.slice(i, i + 4).map((name) => cli(db, ['keys', 'create', '--merchant', name, '--env', 'test'])));
    keys.forEach((k, j) =>
      merchants.push({
        id: k.merchant_id,
        name: names[i + j],
        auth: `${k.public_key}:${k.secret_key}`,
        header: basic(`${k.public_key}:${k.secret_key}`),
      }),
    );
  }
  return merchants;
}

/** Funds the merchants and copies the service's payout and payment in bulk, through the gateway at `gwUrl` (skipped on a database already seeded). */
export async function seed(pool: Pool, gwUrl: string, merchants: Merchant[]): Promise<void> {
  const [big, payer] = merchants;
  const [countRows] = (await pool.query('SELECT COUNT(*) AS n FROM payout_intents WHERE merchant_id = ?', [big.id])) as any;
  if (Number(countRows[0].n) >= PAYOUTS) {
    log('reusing the seed already in the database');
    return;
  }
  const call = async (m: Merchant, p: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${gwUrl}${p}`, {
      method: 'POST',
      headers: { authorization: m.header, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`POST ${p}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  const idem = () => ({ 'idempotency-key': randomBytes(12).toString('hex') });
  const fresh = (o: unknown) => JSON.parse(JSON.stringify(o).split(FRESH).join(randomBytes(6).toString('hex')));

  log('funding the merchants');
  for (const m of merchants) {
    const topup = await call(
      m,
      '/v1/topup_intents',
      { amount: '1000000000000000', currency: 'THB', country: 'TH', merchant_reference: `fund-${randomBytes(6).toString('hex')}` },
      idem(),
    );
    await call(m, `/v1/test_helpers/topup_intents/${topup.id}/succeed`, {});
  }
  const po = await call(big, '/v1/payout_intents', fresh(payoutBody()), idem());
  const pi = await call(payer, '/v1/payment_intents', fresh(paymentBody()), idem());

  const t0 = Date.now() - 86_400_000;
  log(`seeding ${PAYOUTS} payouts (merchant ${big.name})`);
  let s = Date.now();
  const payoutRows: SeedRow[] = Array.from({ length: PAYOUTS }, (_, i) => ({ merchantId: big.id, t: t0 + i * 37 }));
  await copyRows(pool, 'payout_intents', po.id, payoutRows, (n) => {
    if (n % 20000 === 0) log(`  ${n} payouts`);
  });
  log(`  payouts seeded in ${((Date.now() - s) / 1000).toFixed(1)} s`);
  log(`seeding ${PAYMENTS} payments over ${merchants.length} merchants`);
  s = Date.now();
  const paymentRows: SeedRow[] = Array.from({ length: PAYMENTS }, (_, i) => ({
    merchantId: merchants[i % merchants.length].id,
    t: t0 + i * 37,
  }));
  await copyRows(pool, 'payment_intents', pi.id, paymentRows, (n) => {
    if (n % 20000 === 0) log(`  ${n} payments`);
  });
  log(`  payments seeded in ${((Date.now() - s) / 1000).toFixed(1)} s`);
  await pool.query('ANALYZE TABLE payout_intents, payment_intents');
}

const BATCH = 1000;

const PAYOUT_COPY = [
  'environment',
  'amount',
  'currency',
  'country',
  'status',
  'recipient_type',
  'recipient_bank_code',
  'recipient_holder_name',
  'recipient_account_last4',
  'recipient_account_encrypted',
  'failure_code',
  'failure_message',
  'settle_at',
];
const PAYMENT_COPY = [
  'environment',
  'amount',
  'currency',
  'country',
  'checkout_mode',
  'status',
  'request_fingerprint',
  'payment_method',
  'bank',
  'provider',
  'payment_reference',
  'payer_encrypted',
  'return_url',
  'metadata',
  'external_reference',
  'device_fingerprint',
  'next_action',
  'processing_reason',
  'receipt',
  'failure_code',
  'failure_message',
  'planned_failure_code',
  'planned_failure_message',
  'expires_at',
  'settle_at',
  'provider_call',
  'amount_refunded',
];

export interface SeedRow {
  merchantId: string;
  t: number;
}

/**
 * Copies `template` (an id in `table`) once per row. Rows get created_at = updated_at = row.t
 * and an id whose ULID time is row.t, so (created_at, id) order is the service's.
 */
export async function copyRows(
  pool: Pool,
  table: 'payout_intents' | 'payment_intents',
  template: string,
  rows: SeedRow[],
  onProgress?: (done: number) => void,
): Promise<void> {
  const prefix = table === 'payout_intents' ? 'po' : 'pi';
  const copy = table === 'payout_intents' ? PAYOUT_COPY : PAYMENT_COPY;
  const extra = table === 'payment_intents' ? ', checkout_token' : '';
  const cols = `id, merchant_id, merchant_reference, created_at, updated_at${extra}, ${copy.join(', ')}`;
  const run = randomBytes(3).toString('hex');
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    const params: unknown[] = [];
    const selects = batch.map((r, j) => {
      params.push(`${prefix}_${ulid(r.t).toLowerCase()}`, r.merchantId, `seed-${run}-${i + j}`, r.t);
      if (extra) params.push(randomBytes(32).toString('base64url'));
      return j === 0 ? `SELECT ? AS id, ? AS m, ? AS ref, ? AS ts${extra ? ', ? AS tok' : ''}` : `SELECT ?, ?, ?, ?${extra ? ', ?' : ''}`;
    });
    params.push(template);
    await pool.query(
      `INSERT INTO ${table} (${cols}) SELECT v.id, v.m, v.ref, v.ts, v.ts${extra ? ', v.tok' : ''}, ${copy.map((c) => `t.${c}`).join(', ')} ` +
        `FROM ${table} t JOIN (${selects.join(' UNION ALL ')}) v WHERE t.id = ?`,
      params,
    );
    onProgress?.(i + batch.length);
  }
}
