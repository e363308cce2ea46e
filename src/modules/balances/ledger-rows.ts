/**
 * The rows one posting of the ledger writes: a `ledger_entries` row per movement, and the
 * balance transactions they add up to (one per transaction type: the sum of its movements on
 * `available`; entry types that move no available money make none). Both are written in the
 * transaction of the movement, so the read model never lags the ledger.
 */
import { newId } from '../../domain/ids';
import { ENTRY_TRANSACTION, type Posting } from '../../domain/moves';
import type { Scope } from '../../domain/scope';
import { LedgerEntry } from './balance.entity';
import { BalanceTransaction, type BalanceTransactionType } from './finance.entity';

export interface RowSource {
  sourceType: string;
  sourceId: string;
}

export function ledgerRows(scope: Scope, currency: string, postings: Posting[], source: RowSource, now: Date): LedgerEntry[] {
  return postings.flatMap((p) =>
    p.movements.map((m) =>
      Object.assign(new LedgerEntry(), {
        id: newId('ledgerEntry', now.getTime()),
        merchantId: scope.merchantId,
        environment: scope.environment,
        currency,
        bucket: m.bucket,
        amount: m.amount,
        entryType: p.entryType,
        sourceType: source.sourceType,
        sourceId: source.sourceId,
        createdAt: now,
      }),
    ),
  );
}

export function transactionRows(scope: Scope, currency: string, postings: Posting[], source: RowSource, now: Date): BalanceTransaction[] {
  const byType = new Map<string, { amount: bigint; tax: bigint }>();
  for (const p of postings) {
    const available = p.movements.filter((m) => m.bucket === 'available').reduce((sum, m) => sum + m.amount, 0n);
    if (available === 0n) continue;
    const kind = ENTRY_TRANSACTION[p.entryType] ?? { type: 'adjustment' };
    const t = byType.get(kind.type) ?? { amount: 0n, tax: 0n };
    t.amount += available;
    if (kind.tax) t.tax += available;
    byType.set(kind.type, t);
  }
  return [...byType].map(([type, t]) =>
    Object.assign(new BalanceTransaction(), {
      id: newId('balanceTransaction', now.getTime()),
      merchantId: scope.merchantId,
      environment: scope.environment,
      currency,
      type: type as BalanceTransactionType,
      amount: t.amount,
      // Fees are balance transactions of their own (payment_fee, payout_fee): no movement
      // has a fee taken inside it, so fee is 0 and net = amount (docs/finance.md).
      fee: 0n,
      net: t.amount,
      tax: t.tax,
      status: 'available' as const,
      availableOn: now,
      sourceType: source.sourceType,
      sourceId: source.sourceId,
      createdAt: now,
    }),
  );
}
