/** Topup intents: bank-transfer instructions, arrival and expiry. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { TopupIntent } from './topup.entity';
import { TOPUP_OPENAPI } from './topup.openapi';
import { TopupResolver } from './topup.resolver';
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
  openapi: TOPUP_OPENAPI,
});
