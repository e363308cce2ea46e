/**
 * Ledger entries that move money between records without changing a balance: one record's
 * hold becomes several records' holds (a payout batch's reservation becoming its payouts'
 * on approval). The entries of each (currency, bucket) sum to zero, so the balance row is
 * neither read nor locked, and still equals the sum of its entries.
 */
import type { Scope } from '../../domain/scope';
import { insertAll } from '../../db/compiled-write';
import type { Tx } from '../../db/tx';
import type { Bucket } from '../../domain/moves';
import { LedgerEntry } from './balance.entity';
import type { LedgerSource } from './ledger.service';
import { ledgerRows } from './ledger-rows';

export interface Reassignment extends LedgerSource {
  currency: string;
  bucket: Bucket;
  /** Signed minor units. */
  amount: bigint;
}

/** Writes `moves` (each (currency, bucket) summing to zero) in `tx`. */
export async function reassign(tx: Tx, scope: Scope, moves: readonly Reassignment[], now = new Date()): Promise<void> {
  const sums = new Map<string, bigint>();
  for (const m of moves) sums.set(`${m.currency}/${m.bucket}`, (sums.get(`${m.currency}/${m.bucket}`) ?? 0n) + m.amount);
  for (const [key, sum] of sums) if (sum !== 0n) throw new Error(`ledger invariant: a reassignment of ${key} does not sum to zero (${sum})`);
  const rows = moves.flatMap((m) => ledgerRows(scope, m.currency, [{ entryType: m.entryType, movements: [{ bucket: m.bucket, amount: m.amount }] }], m, now));
  await insertAll(tx, LedgerEntry, rows);
}
