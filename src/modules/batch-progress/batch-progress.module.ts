/**
 * Payout batch progress: what a settled payout of a batch does to its batch. Its own module so
 * that the payouts module, which the batches module builds on, can be given it at construction
 * and call it explicitly where a payout settles.
 */
import { eventsModule } from '../events/event.module';
import { defineModule } from '../module';
import { BatchProgress } from './batch-progress.service';

export const batchProgressModule = defineModule({
  name: 'batchProgress',
  uses: { events: eventsModule },
  provide({ db }, { events }) {
    return { batchProgress: new BatchProgress(db, events.events) };
  },
});
