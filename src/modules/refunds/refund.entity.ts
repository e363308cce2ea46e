import { Column, Entity, PrimaryColumn } from 'typeorm';
import { moneyTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';
import type { RefundStatus } from './refund.states';

/**
 * A refund of (part of) a succeeded payment intent. Not an `IntentRecord`: a refund has no
 * country of its own on the wire and its merchant_reference is optional.
 */
@Entity('refunds')
export class Refund {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ name: 'payment_intent_id', type: 'varchar', length: 40 })
  paymentIntentId: string;

  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  amount: bigint;

  /** The payment's currency. */
  @Column({ type: 'varchar', length: 6 })
  currency: string;

  /** The payment's country: what the listing's `country` filter matches (not on the wire). */
  @Column({ type: 'varchar', length: 2 })
  country: string;

  @Column({ type: 'varchar', length: 32 })
  status: RefundStatus;

  @Column({ type: 'varchar', length: 512, nullable: true })
  reason: string | null;

  @Column({ name: 'merchant_reference', type: 'varchar', length: 256, nullable: true })
  merchantReference: string | null;

  @Column({ name: 'failure_code', type: 'varchar', length: 64, nullable: true })
  failureCode: string | null;

  @Column({ name: 'failure_message', type: 'varchar', length: 1024, nullable: true })
  failureMessage: string | null;

  /** Routing fact: the refund connector that handles it. Never returned. */
  @Column({ type: 'varchar', length: 40 })
  provider: string;

  /** When the simulated provider settles a pending refund on its own (null = never). */
  @Column({ name: 'settle_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  settleAt: Date | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer })
  updatedAt: Date;
}
