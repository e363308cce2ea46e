import { Column, Entity } from 'typeorm';
import { IntentRecord } from '../shared/intent.entity';
import { jsonTransformer, timeTransformer } from '../../db/columns';
import type { ApprovalVote } from '../approvals/approval-rules';
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

  /** The real provider account paying it out (pa_...), or null for the simulated bank. Never returned. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  provider: string | null;

  /** The provider's id of the transfer, once sent. Never returned. */
  @Column({ name: 'provider_reference', type: 'varchar', length: 255, nullable: true })
  providerReference: string | null;

  /** The payout batch this payout was approved with (null: created on its own). */
  @Column({ name: 'payout_batch', type: 'varchar', length: 40, nullable: true })
  payoutBatch: string | null;

  /** When the simulated provider settles a processing payout on its own (null = never). */
  @Column({ name: 'settle_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  settleAt: Date | null;

  /** Approvals it needs to move (the policy at its creation; 1 without one). */
  @Column({ name: 'approvals_required', type: 'int', default: 1 })
  approvalsRequired: number;

  /** The policy's rule at creation: null = no policy (the spec's single approve), else who may vote. */
  @Column({ name: 'approval_rule', type: 'varchar', length: 16, nullable: true })
  approvalRule: 'members' | 'members_or_keys' | null;

  /** The id of the key or member that created it. */
  @Column({ name: 'created_by', type: 'varchar', length: 40, nullable: true })
  createdBy: string | null;

  /** The votes recorded so far, oldest first. */
  @Column({ type: 'text', nullable: true, transformer: jsonTransformer })
  approvals: ApprovalVote[] | null;
}
