import { Column, Entity, PrimaryColumn } from 'typeorm';
import { booleanTransformer, jsonTransformer, moneyTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';

/**
 * A payment link: a reusable (or single-use) front door to the hosted checkout, at
 * PUBLIC_BASE_URL/pay/<token>. A fixed `amount`, or the payer chooses one between
 * `minAmount` and `maxAmount` (exactly one of the two forms).
 */
@Entity('payment_links')
export class PaymentLink {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  /** 256 random bits (base64url), unrelated to the id and the merchant: the link's public address. */
  @Column({ type: 'varchar', length: 64 })
  token: string;

  @Column({ type: 'int', transformer: booleanTransformer })
  active: boolean;

  @Column({ type: 'varchar', length: 40, nullable: true, transformer: moneyTransformer })
  amount: bigint | null;

  @Column({ name: 'min_amount', type: 'varchar', length: 40, nullable: true, transformer: moneyTransformer })
  minAmount: bigint | null;

  @Column({ name: 'max_amount', type: 'varchar', length: 40, nullable: true, transformer: moneyTransformer })
  maxAmount: bigint | null;

  @Column({ type: 'varchar', length: 6 })
  currency: string;

  @Column({ type: 'varchar', length: 2 })
  country: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** Method names the payer may choose from; null = every eligible method. */
  @Column({ name: 'allowed_methods', type: 'text', nullable: true, transformer: jsonTransformer })
  allowedMethods: string[] | null;

  @Column({ type: 'int', transformer: booleanTransformer })
  reusable: boolean;

  @Column({ name: 'completion_limit', type: 'int', nullable: true })
  completionLimit: number | null;

  /** Succeeded payments made through the link; raised in the transaction that makes the payment succeed. */
  @Column({ name: 'completed_count', type: 'int' })
  completedCount: number;

  @Column({ name: 'expires_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  expiresAt: Date | null;

  @Column({ name: 'return_url', type: 'varchar', length: 2048, nullable: true })
  returnUrl: string | null;

  @Column({ type: 'text', nullable: true, transformer: jsonTransformer })
  metadata: Record<string, string> | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer })
  updatedAt: Date;
}
