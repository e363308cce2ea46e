/** Topup intents: bank-transfer instructions, arrival and expiry. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { TopupIntent } from './topup.entity';
import { TopupResolver } from './topup.resolver';
import { TopupIntentSchema } from './topup.schemas';
import { registerTopupRoutes } from './topup.routes';
import type { TopupIntentWire } from './topup.service';

export const topupsModule = defineModule({
  name: 'topups',
  entities: [TopupIntent],
  resolvers: [TopupResolver],
  routes: registerTopupRoutes,
  loaders: (app, ctx) => ({
    topupIntent: new DataLoader<string, TopupIntentWire | null>(async (ids) => byKey(ids, await app.topups.getMany(ctx, ids))),
  }),
  models: [TopupIntentSchema],
});
