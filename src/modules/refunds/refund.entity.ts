import { Column, Entity } from 'typeorm';
import { timeTransformer } from '../../db/columns';
import { MoneyRecord } from '../shared/intent.entity';
import type { RefundStatus } from './refund.states';

/**
 * A refund of (part of) a succeeded payment intent. A `MoneyRecord` but not an intent: its
 * merchant_reference is optional, and its currency and country are the payment's (the
 * country is what the listing's `country` filter matches; it is not on the wire).
 */
@Entity('refunds')
export class Refund extends MoneyRecord<RefundStatus> {
  @Column({ name: 'payment_intent_id', type: 'varchar', length: 40 })
  paymentIntentId: string;

  @Column({ type: 'varchar', length: 512, nullable: true })
  reason: string | null;

  @Column({ name: 'merchant_reference', type: 'varchar', length: 256, nullable: true })
  merchantReference: string | null;

  /** Routing fact: the refund connector that handles it. Never returned. */
  @Column({ type: 'varchar', length: 40 })
  provider: string;

  /** A real provider's own id of the refund, once sent (never returned). */
  @Column({ name: 'provider_reference', type: 'varchar', length: 255, nullable: true })
  providerReference: string | null;

  /** When the simulated provider settles a pending refund on its own, or a real provider is asked (again) about it (null = never). */
  @Column({ name: 'settle_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  settleAt: Date | null;
}
