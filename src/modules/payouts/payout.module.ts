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
import { CreatePayoutIntentModel, PayoutIntentSchema } from './payout.schemas';
import { PayoutResolver } from './payout.resolver';
import { registerPayoutRoutes } from './payout.routes';
import { PayoutService, type PayoutIntentWire } from './payout.service';
import { simulatedPayoutConnector } from './simulated-payout.provider';
import { liveGated, type LiveCheck } from '../../ops/operation';
import { providersModule } from '../providers/provider.module';
import { batchProgressModule } from '../batch-progress/batch-progress.module';

declare module '../../graphql/context' {
  interface Loaders {
    payoutIntent: DataLoader<string, PayoutIntentWire | null>;
  }
}

registerNode('po', PayoutIntentType, (loaders, id) => loaders.payoutIntent.load(id), 'payout_intents:read');

export const payoutsModule = defineModule({
  name: 'payouts',
  uses: { balances: balancesModule, events: eventsModule, approvals: approvalsModule, providers: providersModule, batchProgress: batchProgressModule },
  provide({ db, cipher, config, log }, { balances, events, approvals, providers, batchProgress }) {
    const accounts = {
      active: (environment: 'test' | 'live', merchantId: string, em?: Parameters<typeof providers.liveConnectors.active>[2]) =>
        providers.liveConnectors.active(environment, merchantId, em),
      byId: (id: string) => providers.liveConnectors.byId(id),
      recipients: (id: string) => providers.providerAccounts.recipients(id),
    };
    const payouts = new PayoutService({
      db,
      cipher,
      lifecycle: { ledger: balances.ledger, events: events.events },
      connector: simulatedPayoutConnector(),
      settleMs: config.simulatedSettleMs,
      policies: approvals.approvalPolicies,
      accounts,
      recheckMs: config.providerReconcileAfterMs,
      log: log.child({ component: 'providers' }),
      batchItems: batchProgress.batchProgress,
    });
    // Live mode pays out through a provider account that makes payouts (Opn's transfers).
    const paysOut: LiveCheck = async (scope, tx) => (await accounts.active(scope.environment, scope.merchantId, tx)).some((c) => c.payout !== undefined);
    const live = config.simulatedProvidersInLive || paysOut;
    return { payouts, live, ops: liveGated(payoutOperations(payouts), live) };
  },
  jobs: ({ payouts }) => [{ name: 'payouts.settle', run: () => payouts.settleDue() }],
  entities: [PayoutIntent],
  resolvers: [PayoutResolver],
  routes: registerPayoutRoutes,
  loaders: ({ payouts }, ctx) => ({
    payoutIntent: new DataLoader<string, PayoutIntentWire | null>(async (ids) => byKey(ids, await payouts.getMany(ctx, ids))),
  }),
  models: [PayoutIntentSchema, CreatePayoutIntentModel],
  sealed: [{ entity: PayoutIntent, property: 'recipientAccountEncrypted' }],
});
