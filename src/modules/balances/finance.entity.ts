import { Column, Entity, PrimaryColumn } from 'typeorm';
import { moneyTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';

/** The wire `type` of a balance transaction (docs/contract.md "Finance"). */
export const BALANCE_TRANSACTION_TYPES = ['payment', 'payment_fee', 'refund', 'payout', 'payout_fee', 'payout_reversal', 'topup', 'adjustment'] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

/**
 * One movement of a merchant's available balance (the read model over the ledger): written
 * by the ledger in the same transaction as the entries it sums, never changed afterwards.
 */
@Entity('balance_transactions')
export class BalanceTransaction {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ type: 'varchar', length: 6 })
  currency: string;

  @Column({ type: 'varchar', length: 24 })
  type: BalanceTransactionType;

  /** Signed minor units (money in is positive). */
  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  amount: bigint;

  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  fee: bigint;

  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  net: bigint;

  /** The tax part of `amount` (fee records: the tax on the fee), signed as `amount`; not on the wire. */
  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  tax: bigint;

  @Column({ type: 'varchar', length: 16 })
  status: 'pending' | 'available';

  @Column({ name: 'available_on', type: 'bigint', transformer: timeTransformer })
  availableOn: Date;

  @Column({ name: 'source_type', type: 'varchar', length: 32 })
  sourceType: string;

  @Column({ name: 'source_id', type: 'varchar', length: 40 })
  sourceId: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;
}

/** A merchant's fee schedule in one environment: the tax on fees and the payout fee. No row: no fees. */
@Entity('fee_schedules')
export class FeeSchedule {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ name: 'tax_bps', type: 'int' })
  taxBps: number;

  @Column({ name: 'payout_fixed', type: 'varchar', length: 40, transformer: moneyTransformer })
  payoutFixed: bigint;

  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer })
  updatedAt: Date;
}

/** The fee of one payment method in a schedule: a percentage plus a fixed amount. */
@Entity('fee_rates')
export class FeeRateRow {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ name: 'payment_method', type: 'varchar', length: 40 })
  paymentMethod: string;

  @Column({ name: 'percent_bps', type: 'int' })
  percentBps: number;

  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  fixed: bigint;

  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer })
  updatedAt: Date;
}
