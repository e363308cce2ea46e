/** Payment intents and the hosted checkout page. */
import DataLoader from 'dataloader';
import type { FastifyInstance } from 'fastify';
import { balancesModule } from '../balances/balance.module';
import { eventsModule } from '../events/event.module';
import { linkProgressModule } from '../link-progress/link-progress.module';
import { methodsModule } from '../methods/method.module';
import { byKey, defineModule, type RouteKit } from '../module';
import { registerNode } from '../../graphql/node';
import { PaymentIntentType } from './payment.types';
import { CheckoutService } from './checkout.service';
import { registerCheckoutRoutes } from './checkout.routes';
import { PaymentLifecycle } from './payment-lifecycle.service';
import { PaymentIntent } from './payment.entity';
import { paymentOperations } from './payment.operations';
import { PaymentResolver } from './payment.resolver';
import { PaymentIntentSchema, PaymentReceiptSchema } from './payment.schemas';
import { registerPaymentRoutes } from './payment.routes';
import { PaymentService, type PaymentDetails } from './payment.service';
import type { PaymentIntentWire } from './payment.wire';
import { liveGated } from '../../ops/operation';

declare module '../../graphql/context' {
  interface Loaders {
    paymentIntent: DataLoader<string, PaymentIntentWire | null>;
    paymentIntentDetails: DataLoader<string, PaymentDetails | null>;
  }
}

registerNode('pi', PaymentIntentType, (loaders, id) => loaders.paymentIntent.load(id), 'payment_intents:read');

export const paymentsModule = defineModule({
  name: 'payments',
  uses: { balances: balancesModule, events: eventsModule, methods: methodsModule, linkProgress: linkProgressModule },
  provide({ db, cipher, config, publicUrl, log }, { balances, events, methods, linkProgress }) {
    const paymentLifecycle = new PaymentLifecycle({
      db,
      lifecycle: { ledger: balances.ledger, events: events.events },
      methods: methods.methodRouting,
      cipher,
      settleMs: config.simulatedSettleMs,
      baseUrl: () => publicUrl.get(),
      log: log.child({ component: 'providers' }),
      links: linkProgress.linkProgress,
    });
    const payments = new PaymentService({ db, methods: methods.methodRouting, lifecycle: paymentLifecycle });
    const checkout = new CheckoutService({ db, methods: methods.methodRouting, lifecycle: paymentLifecycle });
    return {
      paymentLifecycle,
      payments,
      checkout,
      ops: liveGated(
        paymentOperations(payments, () => publicUrl.get()),
        config.simulatedProvidersInLive || ((scope, tx) => methods.methodRouting.hasAccounts(scope, tx)),
      ),
    };
  },
  jobs: ({ paymentLifecycle }) => [
    { name: 'payments.resume', run: () => paymentLifecycle.resumeStarts(), everyMs: 1000 },
    { name: 'payments.settle', run: () => paymentLifecycle.settleDue() },
    { name: 'payments.expire', run: () => paymentLifecycle.expireDue(), everyMs: 1000 },
  ],
  entities: [PaymentIntent],
  resolvers: [PaymentResolver],
  async routes(fastify: FastifyInstance, services, kit: RouteKit) {
    registerPaymentRoutes(fastify, services, kit);
    await registerCheckoutRoutes(fastify, services);
  },
  loaders: ({ payments }, ctx) => ({
    paymentIntent: new DataLoader<string, PaymentIntentWire | null>(async (ids) => byKey(ids, await payments.getMany(ctx, ids))),
    paymentIntentDetails: new DataLoader<string, PaymentDetails | null>(async (ids) => byKey(ids, await payments.detailsMany(ctx, ids))),
  }),
  models: [PaymentReceiptSchema, PaymentIntentSchema],
  sealed: [{ entity: PaymentIntent, property: 'payerEncrypted' }],
});
