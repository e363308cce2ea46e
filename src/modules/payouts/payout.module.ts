/** Payout intents: creation, the approval gate and settlement. */
import DataLoader from 'dataloader';
import { balancesModule } from '../balances/balance.module';
import { eventsModule } from '../events/event.module';
import { approvalsModule } from '../approvals/approval.module';
import { byKey, defineModule } from '../module';
import { registerNode } from '../../graphql/node';
import { PayoutIntentType } from './payout.types';
import { PayoutIntent } from './payout.entity';
import { payoutOperations } from './payout.operations';
import { PayoutIntentSchema } from './payout.schemas';
import { PayoutResolver } from './payout.resolver';
import { registerPayoutRoutes } from './payout.routes';
import { PayoutService, type PayoutIntentWire } from './payout.service';
import { simulatedPayoutConnector } from './simulated-payout.provider';
import { liveGated } from '../../ops/operation';

declare module '../../graphql/context' {
  interface Loaders {
    payoutIntent: DataLoader<string, PayoutIntentWire | null>;
  }
}

registerNode('po', PayoutIntentType, (loaders, id) => loaders.payoutIntent.load(id));

export const payoutsModule = defineModule({
  name: 'payouts',
  uses: { balances: balancesModule, events: eventsModule, approvals: approvalsModule },
  provide({ db, cipher, config }, { balances, events, approvals }) {
    const payouts = new PayoutService({
      db,
      cipher,
      lifecycle: { ledger: balances.ledger, events: events.events },
      connector: simulatedPayoutConnector(),
      settleMs: config.simulatedSettleMs,
      policies: approvals.approvalPolicies,
    });
    return { payouts, ops: liveGated(payoutOperations(payouts), config.simulatedProvidersInLive) };
  },
  jobs: ({ payouts }) => [{ name: 'payouts.settle', run: () => payouts.settleDue() }],
  entities: [PayoutIntent],
  resolvers: [PayoutResolver],
  routes: registerPayoutRoutes,
  loaders: ({ payouts }, ctx) => ({
    payoutIntent: new DataLoader<string, PayoutIntentWire | null>(async (ids) => byKey(ids, await payouts.getMany(ctx, ids))),
  }),
  models: [PayoutIntentSchema],
  sealed: [{ entity: PayoutIntent, property: 'recipientAccountEncrypted' }],
});
