/** Outcomes from real providers: their webhooks in, and the reconciliation job (docs/providers.md). */
import { defineModule } from '../module';
import { paymentsModule } from '../payments/payment.module';
import { payoutsModule } from '../payouts/payout.module';
import { providersModule } from '../providers/provider.module';
import { ProviderOutcomes } from './provider-outcomes.service';
import { registerProviderWebhookRoutes } from './provider-webhook.routes';

export const providerWebhooksModule = defineModule({
  name: 'provider-webhooks',
  uses: { payments: paymentsModule, payouts: payoutsModule, providers: providersModule },
  provide({ db, config, log }, { payments, payouts, providers }) {
    const providerOutcomes = new ProviderOutcomes({
      db,
      payments: payments.paymentLifecycle,
      payouts: payouts.payouts,
      connectors: providers.liveConnectors,
      log: log.child({ component: 'providers' }),
      reconcileAfterMs: config.providerReconcileAfterMs,
    });
    return { providerOutcomes };
  },
  jobs: ({ providerOutcomes }, config) => [
    // Checked at most every quarter of the wait (and at least once a minute): a record is read back soon after it is due.
    {
      name: 'providers.reconcile',
      run: () => providerOutcomes.reconcile(),
      everyMs: Math.min(60_000, Math.max(50, Math.floor(config.providerReconcileAfterMs / 4))),
    },
  ],
  routes: registerProviderWebhookRoutes,
});
