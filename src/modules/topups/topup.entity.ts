import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonTransformer, moneyTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';
import type { NextAction } from '../methods/next-action';
import type { TopupStatus } from './topup.states';

@Entity('topup_intents')
export class TopupIntent {
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
  status: TopupStatus;

  @Column({ name: 'merchant_reference', type: 'varchar', length: 256 })
  merchantReference: string;

  /** The bank-transfer instructions shown while the topup waits for the transfer. */
  @Column({ name: 'next_action', type: 'text', nullable: true, transformer: jsonTransformer })
  nextAction: NextAction | null;

  @Column({ name: 'failure_code', type: 'varchar', length: 64, nullable: true })
  failureCode: string | null;

  @Column({ name: 'failure_message', type: 'varchar', length: 1024, nullable: true })
  failureMessage: string | null;

  @Column({ name: 'expires_at', type: 'bigint', transformer: timeTransformer })
  expiresAt: Date;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer })
  updatedAt: Date;
}
