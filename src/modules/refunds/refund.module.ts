/** Refunds of succeeded payment intents: creation, settlement by the refund provider, the test helpers. */
import DataLoader from 'dataloader';
import { balancesModule } from '../balances/balance.module';
import { eventsModule } from '../events/event.module';
import { byKey, defineModule } from '../module';
import { registerNode } from '../../graphql/node';
import { RefundType } from './refund.types';
import { paymentsModule } from '../payments/payment.module';
import { Refund } from './refund.entity';
import { refundOperations } from './refund.operations';
import { PaymentIntentRefundsResolver, RefundResolver } from './refund.resolver';
import { registerRefundRoutes } from './refund.routes';
import { RefundSchema } from './refund.schemas';
import { RefundService, type RefundWire } from './refund.service';
import { simulatedRefundConnector } from './simulated-refund.provider';
import { liveGated, type LiveCheck } from '../../ops/operation';
import { providersModule } from '../providers/provider.module';

declare module '../../graphql/context' {
  interface Loaders {
    refund: DataLoader<string, RefundWire | null>;
  }
}

registerNode('re', RefundType, (loaders, id) => loaders.refund.load(id), 'refunds:read');

export const refundsModule = defineModule({
  name: 'refunds',
  uses: { balances: balancesModule, events: eventsModule, payments: paymentsModule, providers: providersModule },
  provide({ db, config, log }, { balances, events, payments, providers }) {
    const refunds = new RefundService({
      db,
      lifecycle: { ledger: balances.ledger, events: events.events },
      payments: payments.paymentLifecycle,
      connector: simulatedRefundConnector(),
      accounts: providers.liveConnectors,
      log: log.child({ component: 'providers' }),
      settleMs: config.simulatedSettleMs,
    });
    // Live mode: a refund goes back through the provider account that took the payment.
    const hasAccounts: LiveCheck = async (scope, tx) => (await providers.providerAccounts.active(scope.environment, scope.merchantId, tx)).length > 0;
    const live = config.simulatedProvidersInLive || hasAccounts;
    return { refunds, ops: liveGated(refundOperations(refunds), live) };
  },
  jobs: ({ refunds }) => [{ name: 'refunds.settle', run: () => refunds.settleDue() }],
  entities: [Refund],
  resolvers: [RefundResolver, PaymentIntentRefundsResolver],
  routes: registerRefundRoutes,
  loaders: ({ refunds }, ctx) => ({
    refund: new DataLoader<string, RefundWire | null>(async (ids) => byKey(ids, await refunds.getMany(ctx, ids))),
  }),
  models: [RefundSchema],
});
