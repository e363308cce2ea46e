/**
 * A payout batch's progress: each of its payouts that settles is counted on the batch, and the
 * last one completes it. The payouts' settle path calls `itemSettled` in the transaction that
 * settles the payout (src/modules/payouts/payout.service.ts, given this at construction); the
 * batch's event is returned for the end of that unit of work.
 */
import type { EndWork } from '../../db/batch';
import type { Db } from '../../db/db';
import type { Tx } from '../../db/tx';
import type { Actor } from '../../domain/scope';
import type { EventService } from '../events/event.service';
import { IntentStore } from '../shared/intent-store';
import { PayoutBatch } from '../batches/batch.entity';
import { BATCH_LIST, type PayoutBatchWire } from '../batches/batch.schemas';
import { batchToWire } from '../batches/batch.wire';

/** What the count needs of a settled payout. */
export interface SettledPayout {
  payoutBatch: string | null;
  status: string;
}

export class BatchProgress {
  private readonly store: IntentStore<PayoutBatch, PayoutBatchWire>;

  constructor(
    db: Db,
    private readonly events: EventService,
  ) {
    this.store = new IntentStore(db, PayoutBatch, 'payoutBatch', 'payout batch', BATCH_LIST, batchToWire);
  }

  /** A payout of a batch settled: counted on the batch, and the last one completes it (its event, for the end of `tx`). */
  async itemSettled(tx: Tx, actor: Actor, payout: SettledPayout): Promise<EndWork[]> {
    if (payout.payoutBatch === null) return [];
    const succeeded = payout.status === 'succeeded' ? 1 : 0;
    await tx
      .createQueryBuilder()
      .update(PayoutBatch)
      .set({ succeededCount: () => `succeeded_count + ${succeeded}`, failedCount: () => `failed_count + ${1 - succeeded}` })
      .where('id = :id AND merchant_id = :merchantId AND environment = :environment', {
        id: payout.payoutBatch,
        merchantId: actor.merchantId,
        environment: actor.environment,
      })
      .execute();
    const batch = await this.store.lock(tx, actor, payout.payoutBatch);
    if (batch.status !== 'processing' || batch.succeededCount + batch.failedCount < batch.itemCount) return [];
    const now = new Date();
    await this.store.transition(tx, actor, batch, batch.failedCount === 0 ? 'completed' : 'partially_completed', {}, now);
    return [await this.events.prepare(tx, actor, 'completed', batchToWire(batch), actor.requestId, now)];
  }
}
