/** Payout batches: many payouts created from one request (JSON or CSV), approved or cancelled together. */
import DataLoader from 'dataloader';
import { approvalsModule } from '../approvals/approval.module';
import { balancesModule } from '../balances/balance.module';
import { eventsModule } from '../events/event.module';
import { payoutsModule } from '../payouts/payout.module';
import { byKey, defineModule } from '../module';
import { PayoutBatch, PayoutBatchItem } from './batch.entity';
import { batchOperations } from './batch.operations';
import { PayoutBatchResolver } from './batch.resolver';
import { registerBatchRoutes } from './batch.routes';
import { PayoutBatchSchema, type PayoutBatchWire } from './batch.schemas';
import { PayoutBatchService } from './batch.service';
import { liveGated, providedIn } from '../../ops/operation';
import { registerNode } from '../../graphql/node';
import { PayoutBatchType } from './batch.types';

declare module '../../graphql/context' {
  interface Loaders {
    payoutBatch: DataLoader<string, PayoutBatchWire | null>;
  }
}

registerNode('pob', PayoutBatchType, (loaders, id) => loaders.payoutBatch.load(id), 'payout_batches:read');

export const batchesModule = defineModule({
  name: 'batches',
  uses: { approvals: approvalsModule, balances: balancesModule, events: eventsModule, payouts: payoutsModule },
  provide({ db, cipher, config }, { approvals, balances, events, payouts }) {
    const batches = new PayoutBatchService({
      db,
      cipher,
      ledger: balances.ledger,
      events: events.events,
      payouts: payouts.payouts,
      policies: approvals.approvalPolicies,
      settleMs: config.simulatedSettleMs,
    });
    // Live batches pay out where live payouts do; approving one sends its rows, so it is gated as a create is.
    const ops = liveGated(batchOperations(batches), payouts.live);
    return { batches, ops: { ...ops, approve: providedIn(ops.approve, payouts.live) } };
  },
  entities: [PayoutBatch, PayoutBatchItem],
  resolvers: [PayoutBatchResolver],
  routes: registerBatchRoutes,
  loaders: ({ batches }, ctx) => ({
    payoutBatch: new DataLoader<string, PayoutBatchWire | null>(async (ids) => byKey(ids, await batches.getMany(ctx, ids))),
  }),
  models: [PayoutBatchSchema],
  sealed: [{ entity: PayoutBatchItem, property: 'accountEncrypted' }],
});
