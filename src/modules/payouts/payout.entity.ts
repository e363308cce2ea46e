import { Column, Entity } from 'typeorm';
import { IntentRecord } from '../shared/intent.entity';
import { timeTransformer } from '../../db/columns';
import type { PayoutStatus } from './payout.states';

@Entity('payout_intents')
export class PayoutIntent extends IntentRecord<PayoutStatus> {
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

  /** The payout batch this payout was approved with (null: created on its own). */
  @Column({ name: 'payout_batch', type: 'varchar', length: 40, nullable: true })
  payoutBatch: string | null;

  /** When the simulated provider settles a processing payout on its own (null = never). */
  @Column({ name: 'settle_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  settleAt: Date | null;
}
