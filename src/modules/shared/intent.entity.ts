/**
 * The columns every intent resource has (payouts, topups, payments), and the part refunds
 * share with them. TypeORM maps inherited
 * columns of a plain abstract class into each entity's own table.
 */
import { Column, PrimaryColumn } from 'typeorm';
import { moneyTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';

/** The columns of every money record of one merchant and environment (intents and refunds). */
export abstract class MoneyRecord<S extends string> {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  amount: bigint;

  @Column({ type: 'varchar', length: 6 })
  currency: string;

  @Column({ type: 'varchar', length: 2 })
  country: string;

  @Column({ type: 'varchar', length: 32 })
  status: S;

  @Column({ name: 'failure_code', type: 'varchar', length: 64, nullable: true })
  failureCode: string | null;

  @Column({ name: 'failure_message', type: 'varchar', length: 1024, nullable: true })
  failureMessage: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer })
  updatedAt: Date;
}

/** An intent: a money record whose merchant_reference is required. */
export abstract class IntentRecord<S extends string> extends MoneyRecord<S> {
  @Column({ name: 'merchant_reference', type: 'varchar', length: 256 })
  merchantReference: string;
}
