/** Payout intents: creation, the approval gate and settlement. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { PayoutIntent } from './payout.entity';
import { PayoutIntentSchema } from './payout.schemas';
import { PayoutResolver } from './payout.resolver';
import { registerPayoutRoutes } from './payout.routes';
import type { PayoutIntentWire } from './payout.service';

export const payoutsModule = defineModule({
  name: 'payouts',
  entities: [PayoutIntent],
  resolvers: [PayoutResolver],
  routes: registerPayoutRoutes,
  loaders: (app, ctx) => ({
    payoutIntent: new DataLoader<string, PayoutIntentWire | null>(async (ids) => byKey(ids, await app.payouts.getMany(ctx, ids))),
  }),
  models: [PayoutIntentSchema],
  sealed: [{ entity: PayoutIntent, property: 'recipientAccountEncrypted' }],
});
