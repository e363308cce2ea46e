/**
 * Bulk seeding for `npm run bench`: rows are copied from one intent the service created
 * itself (its exact shape: sealed recipient account, QR next_action, fingerprints), with a
 * new id, merchant, merchant_reference, checkout token and created_at per row. One
 * INSERT ... SELECT per 1,000 rows: the large columns never leave the database server.
 * Only the intent tables are seeded: the copies have no events, ledger entries or audit rows
 * (none of the scenarios reads them; `cli ledger verify` would report the payouts' holds).
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'mysql2/promise';
import { ulid } from 'ulid';

const BATCH = 1000;

const PAYOUT_COPY = ['environment', 'amount', 'currency', 'country', 'status', 'recipient_type', 'recipient_bank_code', 'recipient_holder_name',
  'recipient_account_last4', 'recipient_account_encrypted', 'failure_code', 'failure_message', 'settle_at'];
const PAYMENT_COPY = ['environment', 'amount', 'currency', 'country', 'checkout_mode', 'status', 'request_fingerprint', 'payment_method', 'bank',
  'provider', 'payment_reference', 'payer_encrypted', 'return_url', 'metadata', 'external_reference', 'device_fingerprint', 'next_action',
  'processing_reason', 'receipt', 'failure_code', 'failure_message', 'planned_failure_code', 'planned_failure_message', 'expires_at', 'settle_at',
  'provider_call', 'amount_refunded'];

export interface SeedRow { merchantId: string; t: number }

/**
 * Copies `template` (an id in `table`) once per row. Rows get created_at = updated_at = row.t
 * and an id whose ULID time is row.t, so (created_at, id) order is the service's.
 */
export async function copyRows(pool: Pool, table: 'payout_intents' | 'payment_intents', template: string, rows: SeedRow[], onProgress?: (done: number) => void): Promise<void> {
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
      `INSERT INTO ${table} (${cols}) SELECT v.id, v.m, v.ref, v.ts, v.ts${extra ? ', v.tok' : ''}, ${copy.map((c) => `t.${c}`).join(', ')} `
      + `FROM ${table} t JOIN (${selects.join(' UNION ALL ')}) v WHERE t.id = ?`,
      params,
    );
    onProgress?.(i + batch.length);
  }
}
