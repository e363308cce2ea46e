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
import { insertOf, insertRows } from '../../db/compiled-write';
import { exactlyOneRow, type EndWork, type Statement } from '../../db/batch';
import type { Tx } from '../../db/tx';
import { Balance, Bucket, BUCKETS, LedgerEntry } from './balance.entity';
import { MOVES, type LedgerEffect, type Movement } from '../../domain/moves';
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

export interface LedgerMismatch {
  merchant_id: string;
  environment: string;
  currency: string;
  bucket: Bucket;
  balance: string;
  ledger_sum: string;
}

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
  constructor(private readonly db: Db) {}

  /** Applies a transition's ledger effect (a named movement of `amount`) for the record `source`. */
  effect(tx: Tx, scope: Scope, currency: string, amount: bigint, effect: LedgerEffect, source: Omit<LedgerSource, 'entryType'>, now = new Date()): EndWork {
    return this.postWork(tx, scope, currency, MOVES[effect.move](amount), { ...source, entryType: effect.entryType }, now);
  }

  /**
   * Applies `movements` to the (scope, currency) balance now, in `tx`. A
   * currency without a balance row counts as all zero: a debit is refused without creating
   * one, and a credit creates it (see `createBalance`).
   */
  post(tx: Tx, scope: Scope, currency: string, movements: Movement[], source: LedgerSource, now = new Date()): Promise<void> {
    return tx.now(this.postWork(tx, scope, currency, movements, source, now)).then(() => undefined);
  }

  /** `post` as end-of-unit work (`tx.atEnd`): on MySQL the entries' INSERT and the guarded balance UPDATE, one batch. */
  private postWork(tx: Tx, scope: Scope, currency: string, movements: Movement[], source: LedgerSource, now: Date): EndWork {
    const entries = movements.map((m) =>
      Object.assign(new LedgerEntry(), {
        id: newId('ledgerEntry', now.getTime()),
        merchantId: scope.merchantId,
        environment: scope.environment,
        currency,
        bucket: m.bucket,
        amount: m.amount,
        entryType: source.entryType,
        sourceType: source.sourceType,
        sourceId: source.sourceId,
        createdAt: now,
      }),
    );
    if (this.db.kind === 'mysql') {
      // The entries first (they take no hot lock), then one conditional UPDATE that both
      // checks and moves the buckets: the balance row is locked for that statement and the
      // COMMIT only, instead of a locking read, an UPDATE and the entries' INSERT. It is a
      // batch sent with the unit's last statements and its COMMIT, guarded (src/db/batch.ts).
      // No row yet, or a bucket would go negative: the locking path finds out which (and refuses).
      return exactlyOneRow(tx, this.moveInPlace(scope, currency, movements, now), () => this.lockAndMove(tx, scope, currency, movements, source, now), [
        insertOf(tx, LedgerEntry, entries),
      ]);
    }
    return async () => {
      await this.lockAndMove(tx, scope, currency, movements, source, now);
      await insertRows(tx, LedgerEntry, entries);
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
  private async lockAndMove(em: EntityManager, scope: Scope, currency: string, movements: Movement[], source: LedgerSource, now: Date): Promise<void> {
    const locked = await this.lockBalance(em, scope, currency);
    const balance = locked ?? newBalance(scope, currency, now);
    for (const m of movements) {
      const next = balance[m.bucket] + m.amount;
      if (next < 0n) {
        if (m.bucket === 'available') {
          throw new ApiError(
            'insufficient_balance',
            `The available ${currency} balance (${formatAmount(balance.available)}) is lower than ${formatAmount(-m.amount)}.`,
          );
        }
        throw new Error(`ledger invariant: ${m.bucket} ${currency} would become negative for ${source.sourceId}`);
      }
      balance[m.bucket] = next;
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

  /**
   * Checks every balance against the sum of its ledger entries (summed as bigint, never as floats).
   * Balances and entries are read in one transaction, i.e. one consistent snapshot: read
   * separately, a transition committing between the two reads shows up as a false mismatch
   * while the gateway is taking traffic (MySQL and a SQLite file shared with a running server).
   */
  async verify(): Promise<{ balances: number; entries: number; mismatches: LedgerMismatch[] }> {
    return this.snapshot(async (em) => {
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
        mismatches.push({
          merchant_id: merchantId,
          environment,
          currency,
          bucket: bucket as Bucket,
          balance: 'missing',
          ledger_sum: sum.toString(),
        });
      }
      return { balances: balances.length, entries, mismatches };
    });
  }

  /** A read-only unit of work on one snapshot (REPEATABLE READ even if the server default differs). */
  private snapshot<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.db.tx(fn, { isolation: 'REPEATABLE READ' });
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
