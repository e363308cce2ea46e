/** Payment intents and the hosted checkout page. */
import DataLoader from 'dataloader';
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { byKey, defineModule } from '../module';
import { registerCheckoutRoutes } from './checkout.routes';
import { PaymentIntent } from './payment.entity';
import { PaymentResolver } from './payment.resolver';
import { PaymentIntentSchema, PaymentReceiptSchema } from './payment.schemas';
import { registerPaymentRoutes } from './payment.routes';
import type { PaymentIntentWire } from './payment.wire';

export const paymentsModule = defineModule({
  name: 'payments',
  entities: [PaymentIntent],
  resolvers: [PaymentResolver],
  async routes(fastify: FastifyInstance, app: App) {
    registerPaymentRoutes(fastify, app);
    await registerCheckoutRoutes(fastify, app);
  },
  loaders: (app, ctx) => ({
    paymentIntent: new DataLoader<string, PaymentIntentWire | null>(async (ids) => byKey(ids, await app.payments.getMany(ctx, ids))),
  }),
  models: [PaymentReceiptSchema, PaymentIntentSchema],
  sealed: [{ entity: PaymentIntent, property: 'payerEncrypted' }],
});
