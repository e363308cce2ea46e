import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonTransformer, moneyTransformer, timeTransformer } from '../../db/columns';
import type { ApprovalVote } from '../approvals/approval-rules';
import type { Environment } from '../auth/api-key.entity';
import type { BatchStatus } from './batch.states';

/** A total of a batch's items in one currency (minor units). */
export interface BatchTotal {
  currency: string;
  amount: string;
}

/** One error of one row (`row` counts from 1). */
export interface RowError {
  row: number;
  param: string;
  message: string;
}

@Entity('payout_batches')
export class PayoutBatch {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ type: 'varchar', length: 32 })
  status: BatchStatus;

  @Column({ name: 'item_count', type: 'int' })
  itemCount: number;

  @Column({ type: 'text', transformer: jsonTransformer })
  totals: BatchTotal[];

  @Column({ type: 'text', transformer: jsonTransformer })
  errors: RowError[];

  /** Items whose payout succeeded / failed at the bank (processing batches count towards item_count). */
  @Column({ name: 'succeeded_count', type: 'int' })
  succeededCount: number;

  @Column({ name: 'failed_count', type: 'int' })
  failedCount: number;

  @Column({ name: 'cancel_reason', type: 'varchar', length: 512, nullable: true })
  cancelReason: string | null;

  /** Approvals it needs: the strictest policy of its currency totals at creation (1 without one). */
  @Column({ name: 'approvals_required', type: 'int', default: 1 })
  approvalsRequired: number;

  /** Who may approve: members only, members or keys; null = no policy (one approve by anyone allowed). */
  @Column({ name: 'approval_rule', type: 'varchar', length: 16, nullable: true })
  approvalRule: 'members' | 'members_or_keys' | null;

  /** The principal (key_... or usr_...) that created it; it cannot approve it under a policy. */
  @Column({ name: 'created_by', type: 'varchar', length: 40, nullable: true })
  createdBy: string | null;

  /** The votes recorded so far, oldest first. */
  @Column({ type: 'text', nullable: true, transformer: jsonTransformer })
  approvals: ApprovalVote[] | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer })
  updatedAt: Date;
}

/** A row of a batch waiting for approval; approval makes it a payout intent with the same reference. */
@Entity('payout_batch_items')
export class PayoutBatchItem {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'batch_id', type: 'varchar', length: 40 })
  batchId: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ name: 'row_number', type: 'int' })
  rowNumber: number;

  @Column({ type: 'varchar', length: 40, transformer: moneyTransformer })
  amount: bigint;

  @Column({ type: 'varchar', length: 6 })
  currency: string;

  @Column({ type: 'varchar', length: 2 })
  country: string;

  @Column({ name: 'merchant_reference', type: 'varchar', length: 256 })
  merchantReference: string;

  @Column({ name: 'bank_code', type: 'varchar', length: 64 })
  bankCode: string;

  @Column({ name: 'holder_name', type: 'varchar', length: 256 })
  holderName: string;

  @Column({ name: 'account_last4', type: 'varchar', length: 4 })
  accountLast4: string;

  /** AES-256-GCM ciphertext of the full account number (FieldCipher); never returned. */
  @Column({ name: 'account_encrypted', type: 'text' })
  accountEncrypted: string;
}
