import { Column, Entity, PrimaryColumn } from 'typeorm';
import { moneyTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';
import type { PayoutStatus } from './payout.states';

@Entity('payout_intents')
export class PayoutIntent {
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
  status: PayoutStatus;

  @Column({ name: 'merchant_reference', type: 'varchar', length: 256 })
  merchantReference: string;

  @Column({ name: 'recipient_type', type: 'varchar', length: 32 })
  recipientType: 'bank_account';

  @Column({ name: 'recipient_bank_code', type: 'varchar', length: 64 })
  recipientBankCode: string;

  @Column({ name: 'recipient_holder_name', type: 'varchar', length: 256 })
  recipientHolderName: string;

  @Column({ name: 'recipient_account_last4', type: 'varchar', length: 4 })
  recipientAccountLast4: string;

  /** AES-256-GCM ciphertext of the full account number; never returned. */
  @Column({ name: 'recipient_account_encrypted', type: 'text' })
  recipientAccountEncrypted: string;

  @Column({ name: 'failure_code', type: 'varchar', length: 64, nullable: true })
  failureCode: string | null;

  @Column({ name: 'failure_message', type: 'varchar', length: 1024, nullable: true })
  failureMessage: string | null;

  /** When the simulated provider settles a processing payout on its own (null = never). */
  @Column({ name: 'settle_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  settleAt: Date | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer })
  updatedAt: Date;
}
