/**
 * `ledger verify`: every balance against the sum of its ledger entries (summed as bigint,
 * never as floats). Balances and entries are read in one transaction, i.e. one consistent
 * snapshot: read separately, a transition committing between the two reads shows up as a
 * false mismatch while the gateway is taking traffic (MySQL and a SQLite file shared with a
 * running server).
 */
import type { EntityManager } from 'typeorm';
import type { Db } from '../../db/db';
import { formatAmount } from '../../domain/money';
import { Balance, BUCKETS, LedgerEntry, type Bucket } from './balance.entity';

export interface LedgerMismatch {
  merchant_id: string;
  environment: string;
  currency: string;
  bucket: Bucket;
  balance: string;
  ledger_sum: string;
}

export interface LedgerReport {
  balances: number;
  entries: number;
  mismatches: LedgerMismatch[];
}

/** A read-only unit of work on one snapshot (REPEATABLE READ even if the server default differs). */
function snapshot<T>(db: Db, fn: (em: EntityManager) => Promise<T>): Promise<T> {
  return db.tx(fn, { isolation: 'REPEATABLE READ' });
}

export function verifyLedger(db: Db): Promise<LedgerReport> {
  return snapshot(db, async (em) => {
    const balances = await em.find(Balance);
    const sums = new Map<string, bigint>();
    let entries = 0;
    const pageSize = 5000;
    for (let lastId = ''; ;) {
      const rows = await em.createQueryBuilder(LedgerEntry, 'l').where('l.id > :lastId', { lastId }).orderBy('l.id', 'ASC').limit(pageSize).getMany();
      for (const r of rows) {
        const key = `${r.merchantId}/${r.environment}/${r.currency}/${r.bucket}`;
        sums.set(key, (sums.get(key) ?? 0n) + r.amount);
      }
      entries += rows.length;
      if (rows.length < pageSize) break;
      lastId = rows[rows.length - 1].id;
    }
    const mismatches: LedgerMismatch[] = [];
    const seen = new Set<string>();
    for (const b of balances) {
      for (const bucket of BUCKETS) {
        const key = `${b.merchantId}/${b.environment}/${b.currency}/${bucket}`;
        seen.add(key);
        const sum = sums.get(key) ?? 0n;
        if (sum !== b[bucket]) {
          mismatches.push({
            merchant_id: b.merchantId,
            environment: b.environment,
            currency: b.currency,
            bucket,
            balance: formatAmount(b[bucket]),
            ledger_sum: sum.toString(),
          });
        }
      }
    }
    for (const [key, sum] of sums) {
      if (seen.has(key) || sum === 0n) continue;
      const [merchantId, environment, currency, bucket] = key.split('/');
      mismatches.push({ merchant_id: merchantId, environment, currency, bucket: bucket as Bucket, balance: 'missing', ledger_sum: sum.toString() });
    }
    return { balances: balances.length, entries, mismatches };
  });
}
