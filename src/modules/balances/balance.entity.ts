import { Column, Entity, PrimaryColumn } from 'typeorm';
import { moneyTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';

import type { Bucket } from '../../domain/moves';

export { BUCKETS, type Bucket } from '../../domain/moves';

/** One row per (merchant, environment, currency); always equal to the sum of its ledger entries. */
@Entity('balances')
export class Balance {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ type: 'varchar', length: 6 })
  currency: string;

  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  available: bigint;

  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  pending: bigint;

  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  reserved: bigint;

  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer })
  updatedAt: Date;
}

/** An append-only balance movement: one signed amount on one bucket, caused by one transition. */
@Entity('ledger_entries')
export class LedgerEntry {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ type: 'varchar', length: 6 })
  currency: string;

  @Column({ type: 'varchar', length: 16 })
  bucket: Bucket;

  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  amount: bigint;

  @Column({ name: 'entry_type', type: 'varchar', length: 40 })
  entryType: string;

  @Column({ name: 'source_type', type: 'varchar', length: 32 })
  sourceType: string;

  @Column({ name: 'source_id', type: 'varchar', length: 40 })
  sourceId: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;
}
