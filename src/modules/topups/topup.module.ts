/** Topup intents: bank-transfer instructions, arrival and expiry. */
import DataLoader from 'dataloader';
import { balancesModule } from '../balances/balance.module';
import { eventsModule } from '../events/event.module';
import { byKey, defineModule } from '../module';
import { registerNode } from '../../graphql/node';
import { TopupIntentType } from './topup.types';
import { TopupIntent } from './topup.entity';
import { topupOperations } from './topup.operations';
import { TopupResolver } from './topup.resolver';
import { TopupIntentSchema } from './topup.schemas';
import { registerTopupRoutes } from './topup.routes';
import { TopupService, type TopupIntentWire } from './topup.service';
import { liveGated } from '../../ops/operation';

declare module '../../graphql/context' {
  interface Loaders {
    topupIntent: DataLoader<string, TopupIntentWire | null>;
  }
}

registerNode('tu', TopupIntentType, (loaders, id) => loaders.topupIntent.load(id), 'topup_intents:read');

export const topupsModule = defineModule({
  name: 'topups',
  uses: { balances: balancesModule, events: eventsModule },
  provide({ db, config }, { balances, events }) {
    const topups = new TopupService({ db, lifecycle: { ledger: balances.ledger, events: events.events } });
    return { topups, ops: liveGated(topupOperations(topups), config.simulatedProvidersInLive) };
  },
  jobs: ({ topups }) => [{ name: 'topups.expire', run: () => topups.expireDue(), everyMs: 1000 }],
  entities: [TopupIntent],
  resolvers: [TopupResolver],
  routes: registerTopupRoutes,
  loaders: ({ topups }, ctx) => ({
    topupIntent: new DataLoader<string, TopupIntentWire | null>(async (ids) => byKey(ids, await topups.getMany(ctx, ids))),
  }),
  models: [TopupIntentSchema],
});
