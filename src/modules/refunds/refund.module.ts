/** Refunds of succeeded payment intents: creation, settlement by the refund provider, the test helpers. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { Refund } from './refund.entity';
import { PaymentIntentRefundsResolver, RefundResolver } from './refund.resolver';
import { registerRefundRoutes } from './refund.routes';
import { RefundSchema } from './refund.schemas';
import type { RefundWire } from './refund.service';

export const refundsModule = defineModule({
  name: 'refunds',
  entities: [Refund],
  resolvers: [RefundResolver, PaymentIntentRefundsResolver],
  routes: registerRefundRoutes,
  loaders: (app, ctx) => ({
    refund: new DataLoader<string, RefundWire | null>(async (ids) => byKey(ids, await app.refunds.getMany(ctx, ids))),
  }),
  models: [RefundSchema],
});
