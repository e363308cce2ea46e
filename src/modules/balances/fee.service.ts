/**
 * Fee schedules (docs/finance.md): per merchant and environment, a tax rate on fees and a
 * payout fee, and per payment method a percentage plus a fixed amount. Set by the operator
 * (`cli fees set`); read by the ledger when a transition's effect has fees (src/domain/moves.ts
 * `FeeEffect`): a merchant without a schedule pays no fees and its balance moves as before.
 */
import type { EntityManager } from 'typeorm';
import type { Db } from '../../db/db';
import { compiledSelect } from '../../db/compiled-select';
import { feeSplit, type FeeRate } from '../../domain/fees';
import { newId } from '../../domain/ids';
import { MOVES, type FeeEffect, type Posting } from '../../domain/moves';
import type { Scope } from '../../domain/scope';
import { BalanceTransaction, FeeRateRow, FeeSchedule } from './finance.entity';

/** The record a fee is for. */
export interface FeeBasis {
  sourceId: string;
  amount: bigint;
  currency: string;
  /** A payment's method (its rate); null for payouts. */
  method: string | null;
}

/** What `cli fees set` changes; absent fields keep their value (a new schedule starts at 0). */
export interface FeeScheduleUpdate {
  taxBps?: number;
  payoutFixed?: bigint;
  method?: { name: string; percentBps: number; fixed: bigint };
}

export interface FeeScheduleView {
  merchant_id: string;
  environment: string;
  tax_bps: number;
  payout_fixed: string;
  methods: { payment_method: string; percent_bps: number; fixed: string }[];
  updated_at: string;
}

/** A fee and its tax as postings: charged out of available (a payment's) or held into reserved (a payout's). */
function feePostings(amount: bigint, rate: FeeRate, effect: 'charge' | 'hold'): Posting[] {
  const { fee, tax } = feeSplit(amount, rate, effect === 'charge');
  const [feeType, taxType, move] =
    effect === 'charge' ? (['payment_fee', 'payment_fee_tax', 'debit'] as const) : (['payout_fee_reserved', 'payout_fee_tax_reserved', 'reserve'] as const);
  return [
    { entryType: feeType, movements: MOVES[move](fee) },
    { entryType: taxType, movements: MOVES[move](tax) },
  ].filter((p) => p.movements.some((m) => m.amount !== 0n));
}

export class FeeService {
  constructor(private readonly db: Db) {}

  /** The ledger postings of `effect`'s fees for `basis`, read in `em` (none without a schedule). */
  async postings(em: EntityManager, scope: Scope, effect: FeeEffect, basis: FeeBasis): Promise<Posting[]> {
    if (effect === 'release' || effect === 'pay') return this.heldPostings(em, scope, effect, basis);
    const schedule = await this.schedule(em, scope);
    if (!schedule) return [];
    let rate: FeeRate = { percentBps: 0, fixed: schedule.payoutFixed, taxBps: schedule.taxBps };
    if (effect === 'charge') {
      const r = basis.method ? await this.rate(em, scope, basis.method) : null;
      if (!r) return [];
      rate = { percentBps: r.percentBps, fixed: r.fixed, taxBps: schedule.taxBps };
    }
    return feePostings(basis.amount, rate, effect === 'charge' ? 'charge' : 'hold');
  }

  /**
   * Holding the payout fee of many new payouts of `scope` (a payout batch's, on approval):
   * the schedule is read once; the answer gives each payout's postings (none without a schedule).
   */
  async payoutHolds(em: EntityManager, scope: Scope): Promise<(amount: bigint) => Posting[]> {
    const schedule = await this.schedule(em, scope);
    if (!schedule) return () => [];
    const rate: FeeRate = { percentBps: 0, fixed: schedule.payoutFixed, taxBps: schedule.taxBps };
    return (amount) => feePostings(amount, rate, 'hold');
  }

  /** A settled payout's fee and tax, as its `payout_fee` balance transactions held them: given back or paid out. */
  private async heldPostings(em: EntityManager, scope: Scope, effect: 'release' | 'pay', basis: FeeBasis): Promise<Posting[]> {
    const held = await compiledSelect(em, 'fees.held', { merchantId: scope.merchantId, environment: scope.environment, sourceId: basis.sourceId }, () =>
      em
        .createQueryBuilder(BalanceTransaction, 't')
        .where("t.source_id = :sourceId AND t.merchant_id = :merchantId AND t.environment = :environment AND t.type = 'payout_fee'"),
    );
    // Held amounts are negative (money out of available); a release already made would be positive.
    const total = -held.reduce((sum, t) => sum + t.amount, 0n);
    const tax = -held.reduce((sum, t) => sum + t.tax, 0n);
    if (total <= 0n) return [];
    const [feeType, taxType, move] =
      effect === 'release'
        ? (['payout_fee_released', 'payout_fee_tax_released', 'release'] as const)
        : (['payout_fee_paid', 'payout_fee_tax_paid', 'payOut'] as const);
    return [
      { entryType: feeType, movements: MOVES[move](total - tax) },
      { entryType: taxType, movements: MOVES[move](tax) },
    ].filter((p) => p.movements.some((m) => m.amount !== 0n));
  }

  private async schedule(em: EntityManager, scope: Scope): Promise<FeeSchedule | null> {
    const rows = await compiledSelect(em, 'fees.schedule', { merchantId: scope.merchantId, environment: scope.environment }, () =>
      em.createQueryBuilder(FeeSchedule, 's').where('s.merchant_id = :merchantId AND s.environment = :environment'),
    );
    return rows[0] ?? null;
  }

  private async rate(em: EntityManager, scope: Scope, method: string): Promise<FeeRateRow | null> {
    const rows = await compiledSelect(em, 'fees.rate', { merchantId: scope.merchantId, environment: scope.environment, method }, () =>
      em.createQueryBuilder(FeeRateRow, 'r').where('r.merchant_id = :merchantId AND r.environment = :environment AND r.payment_method = :method'),
    );
    return rows[0] ?? null;
  }

  /** The schedule as `cli fees show` prints it; null when the merchant has none in `scope`'s environment. */
  show(scope: Scope): Promise<FeeScheduleView | null> {
    return this.db.read((em) => this.view(em, scope));
  }

  private async view(em: EntityManager, scope: Scope): Promise<FeeScheduleView | null> {
    const s = await this.schedule(em, scope);
    if (!s) return null;
    const rates = await em.find(FeeRateRow, { where: { merchantId: scope.merchantId, environment: scope.environment }, order: { paymentMethod: 'ASC' } });
    return {
      merchant_id: s.merchantId,
      environment: s.environment,
      tax_bps: s.taxBps,
      payout_fixed: s.payoutFixed.toString(),
      methods: rates.map((r) => ({ payment_method: r.paymentMethod, percent_bps: r.percentBps, fixed: r.fixed.toString() })),
      updated_at: s.updatedAt.toISOString(),
    };
  }

  /** Creates or changes the schedule (and one method's rate); the new schedule. Operator only (CLI). */
  set(scope: Scope, update: FeeScheduleUpdate): Promise<FeeScheduleView> {
    return this.db.tx(async (em) => {
      const now = new Date();
      const where = { merchantId: scope.merchantId, environment: scope.environment };
      const existing = await em.findOne(FeeSchedule, { where });
      if (existing) {
        await em.update(
          FeeSchedule,
          { id: existing.id },
          { taxBps: update.taxBps ?? existing.taxBps, payoutFixed: update.payoutFixed ?? existing.payoutFixed, updatedAt: now },
        );
      } else {
        await em.insert(FeeSchedule, {
          id: newId('feeSchedule', now.getTime()),
          ...where,
          taxBps: update.taxBps ?? 0,
          payoutFixed: update.payoutFixed ?? 0n,
          updatedAt: now,
        });
      }
      if (update.method) {
        const m = update.method;
        const rate = await em.findOne(FeeRateRow, { where: { ...where, paymentMethod: m.name } });
        if (rate) await em.update(FeeRateRow, { id: rate.id }, { percentBps: m.percentBps, fixed: m.fixed, updatedAt: now });
        else
          await em.insert(FeeRateRow, {
            id: newId('feeRate', now.getTime()),
            ...where,
            paymentMethod: m.name,
            percentBps: m.percentBps,
            fixed: m.fixed,
            updatedAt: now,
          });
      }
      return (await this.view(em, scope))!;
    });
  }
}
