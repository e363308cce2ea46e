/**
 * The module registry: the one place that names every module. The assemblers iterate it
 * (entities for the data source, resolvers for the schema, loaders for the GraphQL
 * context, routes for the server, fragments for the OpenAPI document).
 */
import { auditModule } from './audit/audit.module';
import { authModule } from './auth/auth.module';
import { balancesModule } from './balances/balance.module';
import { eventsModule } from './events/event.module';
import { idempotencyModule } from './idempotency/idempotency.module';
import { methodsModule } from './methods/method.module';
import { paymentsModule } from './payments/payment.module';
import { payoutsModule } from './payouts/payout.module';
import { refundsModule } from './refunds/refund.module';
import { topupsModule } from './topups/topup.module';
import { webhooksModule } from './webhooks/webhook.module';
import type { LoaderMap, ModuleDefinition, SealedColumn } from './module';

export const MODULES = [
  authModule, idempotencyModule, auditModule, eventsModule, webhooksModule,
  balancesModule, payoutsModule, topupsModule, methodsModule, paymentsModule, refundsModule,
] as const;

type LoadersOf<M> = M extends ModuleDefinition<infer L> ? L : never;
type Intersect<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Every module's DataLoaders, by key. */
export type Loaders = Intersect<LoadersOf<(typeof MODULES)[number]>>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const ENTITIES: Function[] = MODULES.flatMap((m: ModuleDefinition<LoaderMap>) => m.entities ?? []);

/** Every column sealed by the data key, for `cli data-key rewrap`. */
export const SEALED: SealedColumn[] = MODULES.flatMap((m: ModuleDefinition<LoaderMap>) => m.sealed ?? []);
