/**
 * The module registry: the one place that names every module. The assemblers iterate it
 * (entities for the data source, resolvers for the schema, loaders for the GraphQL
 * context, routes for the server, fragments for the OpenAPI document), and `composeModules`
 * builds the modules' services from it.
 */
import { approvalsModule } from './approvals/approval.module';
import { auditModule } from './audit/audit.module';
import { authModule } from './auth/auth.module';
import { balancesModule } from './balances/balance.module';
import { batchesModule } from './batches/batch.module';
import { batchProgressModule } from './batch-progress/batch-progress.module';
import { eventsModule } from './events/event.module';
import { graphModule } from './graph/graph.module';
import { financeModule } from './finance/finance.module';
import { idempotencyModule } from './idempotency/idempotency.module';
import { linksModule } from './links/link.module';
import { linkProgressModule } from './link-progress/link-progress.module';
import { methodsModule } from './methods/method.module';
import { peopleModule } from './people/people.module';
import { paymentsModule } from './payments/payment.module';
import { payoutsModule } from './payouts/payout.module';
import { providersModule } from './providers/provider.module';
import { providerWebhooksModule } from './provider-webhooks/provider-webhook.module';
import { refundsModule } from './refunds/refund.module';
import { topupsModule } from './topups/topup.module';
import { webhooksModule } from './webhooks/webhook.module';
import { webhookFanOutModule } from './webhook-fan-out/webhook-fan-out.module';
import { Composition } from './compose';
import type { AnyModule, Kernel, SealedColumn } from './module';

export { Composition } from './compose';
export type { AnyModule } from './module';

export const MODULES: readonly AnyModule[] = [
  authModule,
  peopleModule,
  idempotencyModule,
  auditModule,
  webhookFanOutModule,
  eventsModule,
  webhooksModule,
  balancesModule,
  approvalsModule,
  batchProgressModule,
  payoutsModule,
  batchesModule,
  topupsModule,
  providersModule,
  methodsModule,
  linkProgressModule,
  paymentsModule,
  providerWebhooksModule,
  refundsModule,
  linksModule,
  graphModule,
  financeModule,
];

/** Builds every module's services, each after the modules it uses. */
export function composeModules(kernel: Kernel): Composition {
  return new Composition(MODULES, kernel);
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const ENTITIES: Function[] = MODULES.flatMap((m) => m.entities ?? []);

/** Every column sealed by the data key, for `cli data-key rewrap`. */
export const SEALED: SealedColumn[] = MODULES.flatMap((m) => m.sealed ?? []);
