/** A payout batch on the wire. */
import { isoInstant } from '../../domain/instant';
import { approvalToWire } from '../approvals/approval-rules';
import type { PayoutBatch } from './batch.entity';
import type { PayoutBatchWire } from './batch.schemas';

export function batchToWire(b: PayoutBatch): PayoutBatchWire {
  return {
    object: 'payout_batch',
    id: b.id,
    status: b.status,
    item_count: b.itemCount,
    totals: b.totals,
    errors: b.errors,
    approvals_required: b.approvalsRequired,
    approvals: (b.approvals ?? []).map(approvalToWire),
    created_at: isoInstant(b.createdAt),
    updated_at: isoInstant(b.updatedAt),
  };
}
