/**
 * A batch's approval, once the batch row moved to `processing`: every row becomes a payout
 * intent in `processing`, the batch's reservation of each currency
 * moves to its payouts (ledger entries that sum to zero per currency: the balance row is not
 * touched), and the writes for the end of the unit are returned: the payouts' fee holds, then
 * the events, written together: the batch's `payout_batch.approved`, and each payout's
 * `payout_intent.created` and `payout_intent.processing`.
 */
import type { EndWork } from '../../db/batch';
import { insertAll } from '../../db/compiled-write';
import type { Tx } from '../../db/tx';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { Actor } from '../../domain/scope';
import { reassign, type Reassignment } from '../balances/ledger-reassign';
import { recordMany, type NewEvent } from '../events/event-bulk';
import { PayoutIntent } from '../payouts/payout.entity';
import { payoutToWire, unpayableBank, type PayoutService } from '../payouts/payout.service';
import { PayoutBatch, PayoutBatchItem } from './batch.entity';
import type { Db } from '../../db/db';
import type { EventService } from '../events/event.service';
import type { LedgerService } from '../balances/ledger.service';
import type { PayoutBatchWire } from './batch.schemas';

export interface ApproveDeps {
  db: Db;
  ledger: LedgerService;
  events: EventService;
  /** Delay before the provider settles an approved payout on its own; 0 = never. */
  settleMs: number;
  payouts: Pick<PayoutService, 'payoutAccounts'>;
}

export async function approveItems(tx: Tx, actor: Actor, batch: PayoutBatch, wire: PayoutBatchWire, now: Date, deps: ApproveDeps): Promise<EndWork[]> {
  const items = await tx
    .createQueryBuilder(PayoutBatchItem, 'i')
    .where('i.batch_id = :batchId AND i.merchant_id = :merchantId AND i.environment = :environment', {
      batchId: batch.id,
      merchantId: actor.merchantId,
      environment: actor.environment,
    })
    .orderBy('i.row_number', 'ASC')
    .getMany();
  // Each row goes through the provider account that pays to its bank now (null: the simulated
  // bank); one that no account pays to any more (an account disabled since the batch was
  // created) refuses the approval, and nothing changes.
  const routes = items.map((item) => ({ recipient: { bank_code: item.bankCode }, currency: item.currency }));
  const accounts = await deps.payouts.payoutAccounts(tx, actor, routes);
  const unpayable = accounts.indexOf(false);
  if (unpayable >= 0) {
    throw new ApiError(
      'no_provider_available',
      `Row ${items[unpayable].rowNumber}: ${unpayableBank(actor, routes[unpayable])} Cancel the batch and create it again without that row.`,
    );
  }
  // A provider account's payout is sent at once (the settle job sends it); the simulated bank waits SIMULATED_SETTLE_MS.
  const simulatedSettleAt = deps.settleMs > 0 ? new Date(now.getTime() + deps.settleMs) : null;
  const payouts = items.map((item, i) => {
    const account = accounts[i] as string | null;
    return payoutOf(item, batch, account, account !== null ? now : simulatedSettleAt, now);
  });
  try {
    await insertAll(tx, PayoutIntent, payouts);
  } catch (err) {
    if (!deps.db.isUniqueViolation(err)) throw err;
    throw new ApiError(
      'invalid_state',
      'A merchant_reference of this batch was used by a payout intent created since the batch was; cancel the batch and create it again without that row.',
    );
  }
  const moves: Reassignment[] = batch.totals.map((t) => ({
    currency: t.currency,
    bucket: 'reserved' as const,
    amount: -BigInt(t.amount),
    entryType: 'payout_batch_approved',
    sourceType: 'payout_batch' as const,
    sourceId: batch.id,
  }));
  for (const p of payouts) {
    moves.push({ currency: p.currency, bucket: 'reserved', amount: p.amount, entryType: 'payout_reserved', sourceType: 'payout_intent', sourceId: p.id });
  }
  await reassign(tx, actor, moves, now);
  // The payouts are created now, so their payout fees are held now (docs/finance.md), as for a
  // payout created on its own: from available, refused whole when they do not fit.
  const fees = await deps.ledger.holdPayoutFees(tx, actor, payouts, now);
  const events: NewEvent[] = [{ suffix: 'approved', record: wire }];
  for (const p of payouts) {
    const record = payoutToWire(p);
    events.push({ suffix: 'created', record }, { suffix: 'processing', record });
  }
  const recorded = await recordMany(deps.events, tx, actor, events, actor.requestId, now);
  return fees ? [fees, recorded] : [recorded];
}

function payoutOf(item: PayoutBatchItem, batch: PayoutBatch, provider: string | null, settleAt: Date | null, now: Date): PayoutIntent {
  return Object.assign(new PayoutIntent(), {
    id: newId('payoutIntent', now.getTime()),
    merchantId: item.merchantId,
    environment: item.environment,
    amount: item.amount,
    currency: item.currency,
    country: item.country,
    status: 'processing' as const,
    merchantReference: item.merchantReference,
    recipientType: 'bank_account' as const,
    recipientBankCode: item.bankCode,
    recipientHolderName: item.holderName,
    recipientAccountLast4: item.accountLast4,
    recipientAccountEncrypted: item.accountEncrypted,
    failureCode: null,
    failureMessage: null,
    payoutBatch: item.batchId,
    provider,
    providerReference: null,
    settleAt,
    // Approved with its batch: the batch's gate counted the approvals, which each payout shows.
    approvalsRequired: batch.approvalsRequired,
    approvalRule: batch.approvalRule,
    createdBy: batch.createdBy,
    approvals: batch.approvals,
    createdAt: now,
    updatedAt: now,
  });
}
