/**
 * The one seam between a batch's approve and the approval rules: `decide` is asked once per
 * approve, with the batch locked, and answers whether this approve moves the batch on
 * (`approved`) or only counts towards the approvals its policy needs (`pending`); a refusal
 * is thrown (an ApiError), and rolls the approve back. One set of approvals covers the whole
 * batch: the policy is chosen by the batch's totals, not by each item.
 */
import type { RequestContext } from '../../domain/scope';
import type { Tx } from '../../db/tx';
import type { PayoutBatch } from './batch.entity';

export type GateDecision = 'approved' | 'pending';

export interface BatchApprovalGate {
  decide(tx: Tx, batch: PayoutBatch, caller: RequestContext): Promise<GateDecision>;
}

/** No approval policy: one approve moves the batch on. */
export const OPEN_GATE: BatchApprovalGate = {
  decide: () => Promise.resolve('approved'),
};
