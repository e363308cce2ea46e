/**
 * The ledger: every balance movement is a row of `ledger_entries`, written in the same
 * transaction as the state change that caused it, and applied to the balance row under
 * a row lock. A balance therefore always equals the sum of its entries, and no bucket
 * ever goes negative: a movement that would overdraw `available` is refused with
 * 422 insufficient_balance and the whole transaction rolls back.
 */
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { formatAmount } from '../../domain/money';
import type { Scope } from '../../domain/scope';
import { PrepareAndRetry, type Db } from '../../db/db';
import { insertAll, insertOf, insertRows } from '../../db/compiled-write';
import { exactlyOneRow, type EndWork, type Statement } from '../../db/batch';
import type { Tx } from '../../db/tx';
import { Balance, BUCKETS, LedgerEntry, type Bucket } from './balance.entity';
import { MOVES, type LedgerEffect, type Movement, type Posting } from '../../domain/moves';
import { BalanceTransaction } from './finance.entity';
import { ledgerRows, transactionRows } from './ledger-rows';
import { verifyLedger, type LedgerReport } from './ledger-verify';
import type { FeeService } from './fee.service';
import { isoInstant } from '../../domain/instant';
import type { BalanceWire } from './balance.schemas';
import { lockedOne } from '../../db/locking-read';
export type { BalanceWire } from './balance.schemas';

export interface LedgerSource {
  /** What happened, e.g. `payout_reserved`, `payment_succeeded`. */
  entryType: string;
  sourceType: 'payment_intent' | 'payout_intent' | 'topup_intent' | 'refund' | 'payout_batch';
  sourceId: string;
}

export type { LedgerMismatch, LedgerReport } from './ledger-verify';

export function balanceToWire(b: Balance): BalanceWire {
  return {
    object: 'balance',
    currency: b.currency,
    environment: b.environment,
    available: formatAmount(b.available),
    pending: formatAmount(b.pending),
    reserved: formatAmount(b.reserved),
    updated_at: isoInstant(b.updatedAt),
  };
}

export { MOVES, type Movement } from '../../domain/moves';

/** An all-zero balance, not yet stored. */
function newBalance(scope: Scope, currency: string, now: Date): Balance {
  return Object.assign(new Balance(), {
    id: newId('balance', now.getTime()),
    merchantId: scope.merchantId,
    environment: scope.environment,
    currency,
    available: 0n,
    pending: 0n,
    reserved: 0n,
    updatedAt: now,
  });
}

export class LedgerService {
  constructor(
    private readonly db: Db,
    private readonly fees: FeeService,
  ) {}

  /**
   * A transition's ledger effect (a named movement of `amount`) for the record `source`, with
   * its fees (src/modules/balances/fee.service.ts), as end-of-unit work. The fees' reads run now.
   */
  async effect(
    tx: Tx,
    scope: Scope,
    currency: string,
    amount: bigint,
    effect: LedgerEffect,
    source: Omit<LedgerSource, 'entryType'>,
    now = new Date(),
    method: string | null = null,
  ): Promise<EndWork> {
    const postings: Posting[] = [{ entryType: effect.entryType, movements: MOVES[effect.move](amount) }];
    if (effect.fees) postings.push(...(await this.fees.postings(tx, scope, effect.fees, { sourceId: source.sourceId, amount, currency, method })));
    return this.postWork(tx, scope, currency, postings, source, now);
  }

  /**
   * New payouts holding their payout fees (a payout batch's, on approval), as end-of-unit
   * work: each payout's entries and `payout_fee` balance transaction, and one move of each
   * currency's balance for all of them (refused whole with insufficient_balance). The fee
   * schedule is read once; nothing without one.
   */
  async holdPayoutFees(tx: Tx, scope: Scope, payouts: readonly { id: string; amount: bigint; currency: string }[], now: Date): Promise<EndWork | null> {
    const hold = await this.fees.payoutHolds(tx, scope);
    const byCurrency = new Map<string, { source: Omit<LedgerSource, 'entryType'>; postings: Posting[] }[]>();
    for (const p of payouts) {
      const postings = hold(p.amount);
      if (postings.length === 0) continue;
      const records = byCurrency.get(p.currency) ?? [];
      records.push({ source: { sourceType: 'payout_intent', sourceId: p.id }, postings });
      byCurrency.set(p.currency, records);
    }
    if (byCurrency.size === 0) return null;
    return async () => {
      for (const [currency, records] of byCurrency) {
        const movements = records.flatMap((r) => r.postings.flatMap((p) => p.movements));
        await this.lockAndMove(tx, scope, currency, movements, records[0].source, now);
        await insertAll(
          tx,
          LedgerEntry,
          records.flatMap((r) => ledgerRows(scope, currency, r.postings, r.source, now)),
        );
        await insertAll(
          tx,
          BalanceTransaction,
          records.flatMap((r) => transactionRows(scope, currency, r.postings, r.source, now)),
        );
      }
    };
  }

  /**
   * Applies `movements` to the (scope, currency) balance now, in `tx`. A
   * currency without a balance row counts as all zero: a debit is refused without creating
   * one, and a credit creates it (see `createBalance`).
   */
  post(tx: Tx, scope: Scope, currency: string, movements: Movement[], source: LedgerSource, now = new Date()): Promise<void> {
    return tx.now(this.postWork(tx, scope, currency, [{ entryType: source.entryType, movements }], source, now)).then(() => undefined);
  }

  /**
   * `post` as end-of-unit work, returned for the caller to pass up to the unit's end: the
   * entries, the balance transactions they make, and the balance's move; on MySQL the INSERTs
   * and the guarded balance UPDATE, one batch.
   */
  private postWork(tx: Tx, scope: Scope, currency: string, postings: Posting[], source: Omit<LedgerSource, 'entryType'>, now: Date): EndWork {
    const entries = ledgerRows(scope, currency, postings, source, now);
    const transactions = transactionRows(scope, currency, postings, source, now);
    const movements = postings.flatMap((p) => p.movements);
    if (this.db.kind === 'mysql') {
      // The entries first (they take no hot lock), then one conditional UPDATE that both
      // checks and moves the buckets: the balance row is locked for that statement and the
      // COMMIT only, instead of a locking read, an UPDATE and the entries' INSERT. It is a
      // batch sent with the unit's last statements and its COMMIT, guarded (src/db/batch.ts).
      // No row yet, or a bucket would go negative: the locking path finds out which (and refuses).
      const inserts = [insertOf(tx, LedgerEntry, entries), ...(transactions.length > 0 ? [insertOf(tx, BalanceTransaction, transactions)] : [])];
      return exactlyOneRow(tx, this.moveInPlace(scope, currency, movements, now), () => this.lockAndMove(tx, scope, currency, movements, source, now), inserts);
    }
    return async () => {
      await this.lockAndMove(tx, scope, currency, movements, source, now);
      await insertRows(tx, LedgerEntry, entries);
      if (transactions.length > 0) await insertRows(tx, BalanceTransaction, transactions);
    };
  }

  /** MySQL: moves the buckets in one statement if the row exists and none would go negative (one row changed); nothing otherwise. */
  private moveInPlace(scope: Scope, currency: string, movements: Movement[], now: Date): Statement {
    const delta: Record<Bucket, bigint> = { available: 0n, pending: 0n, reserved: 0n };
    for (const m of movements) delta[m.bucket] += m.amount;
    // CAST: a string parameter in arithmetic would otherwise be a DOUBLE (53 bits).
    const d = (b: Bucket) => delta[b].toString();
    return {
      sql:
        'UPDATE balances SET available = available + CAST(? AS DECIMAL(38,0)), pending = pending + CAST(? AS DECIMAL(38,0)), reserved = reserved + CAST(? AS DECIMAL(38,0)), updated_at = ? ' +
        'WHERE merchant_id = ? AND environment = ? AND currency = ? ' +
        'AND available + CAST(? AS DECIMAL(38,0)) >= 0 AND pending + CAST(? AS DECIMAL(38,0)) >= 0 AND reserved + CAST(? AS DECIMAL(38,0)) >= 0',
      params: [
        d('available'),
        d('pending'),
        d('reserved'),
        now.getTime(),
        scope.merchantId,
        scope.environment,
        currency,
        d('available'),
        d('pending'),
        d('reserved'),
      ],
    };
  }

  /** The locking path: reads the balance under a row lock, refuses an overdraft, writes it back (or creates the row). */
  private async lockAndMove(
    em: EntityManager,
    scope: Scope,
    currency: string,
    movements: Movement[],
    source: Omit<LedgerSource, 'entryType'>,
    now: Date,
  ): Promise<void> {
    const locked = await this.lockBalance(em, scope, currency);
    const balance = locked ?? newBalance(scope, currency, now);
    // Each bucket's move as a whole: a payout and its fee are refused together, naming both.
    for (const bucket of BUCKETS) {
      const delta = movements.filter((m) => m.bucket === bucket).reduce((sum, m) => sum + m.amount, 0n);
      const next = balance[bucket] + delta;
      if (next < 0n) {
        if (bucket === 'available') {
          throw new ApiError(
            'insufficient_balance',
            `The available ${currency} balance (${formatAmount(balance.available)}) is lower than ${formatAmount(-delta)}.`,
          );
        }
        throw new Error(`ledger invariant: ${bucket} ${currency} would become negative for ${source.sourceId}`);
      }
      balance[bucket] = next;
    }
    balance.updatedAt = now;
    if (locked) {
      await em
        .createQueryBuilder()
        .update(Balance)
        .set({ available: balance.available, pending: balance.pending, reserved: balance.reserved, updatedAt: now })
        .where('id = :id', { id: balance.id })
        .execute();
    } else {
      await this.createBalance(em, balance);
    }
  }

  async list(scope: Scope): Promise<BalanceWire[]> {
    const rows = await this.db.read((em) =>
      em
        .createQueryBuilder(Balance, 'b')
        .where('b.merchant_id = :merchantId AND b.environment = :environment', {
          merchantId: scope.merchantId,
          environment: scope.environment,
        })
        .orderBy('b.currency', 'ASC')
        .getMany(),
    );
    return rows.map(balanceToWire);
  }

  /** Checks every balance against the sum of its ledger entries (src/modules/balances/ledger-verify.ts). */
  verify(): Promise<LedgerReport> {
    return verifyLedger(this.db);
  }

  /** The (scope, currency) balance row, locked until `em`'s transaction ends; null when there is none yet. */
  private lockBalance(em: EntityManager, scope: Scope, currency: string): Promise<Balance | null> {
    return lockedOne(
      em,
      em.createQueryBuilder(Balance, 'b').where('b.merchant_id = :merchantId AND b.environment = :environment AND b.currency = :currency', {
        merchantId: scope.merchantId,
        environment: scope.environment,
        currency,
      }),
    );
  }

  /**
   * Creates the first balance row of a currency, holding `balance`'s amounts.
   *
   * SQLite: inserted in `em`'s transaction (the queue runs it alone, so nothing races it).
   *
   * MySQL: the locking read that found no row holds a gap lock, and parallel transactions
   * that each INSERT the row into that gap deadlock on one another (1213); a refused one
   * rolls its row back, so its retries race again. So the row is not inserted here: this
   * transaction is rolled back, an all-zero row is committed on its own (a duplicate from
   * a concurrent creator is fine), and `Db.tx` reruns the unit of work, which then finds
   * and locks the row. A zero row carries no money and has no entries, so the ledger
   * still balances if the rerun is refused.
   */
  private async createBalance(em: EntityManager, balance: Balance): Promise<void> {
    if (this.db.kind === 'sqlite') {
      await em.getRepository(Balance).insert(balance);
      return;
    }
    const scope = { merchantId: balance.merchantId, environment: balance.environment };
    throw new PrepareAndRetry(`the ${balance.currency} balance row`, async (outside) => {
      try {
        await outside.getRepository(Balance).insert(newBalance(scope, balance.currency, new Date()));
      } catch (err) {
        if (!this.db.isUniqueViolation(err)) throw err;
      }
    });
  }
}
