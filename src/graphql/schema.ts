/** Builds the GraphQL schema from the resolvers; `schema.graphql` is this schema printed. */
import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync, NonEmptyArray } from 'type-graphql';
import { ViewerResolver } from '../modules/auth/viewer.resolver';
import { PayoutResolver } from '../modules/payouts/payout.resolver';
import { TopupResolver } from '../modules/topups/topup.resolver';
import { BalanceResolver } from '../modules/balances/balance.resolver';
import { PaymentResolver } from '../modules/payments/payment.resolver';
import { MethodResolver } from '../modules/methods/method.resolver';
import { EventResolver, EventSubscriptionResolver } from '../modules/events/event.resolver';
import { WebhookResolver } from '../modules/webhooks/webhook.resolver';
import { AuditResolver } from '../modules/audit/audit.resolver';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const RESOLVERS: NonEmptyArray<Function> = [ViewerResolver, PayoutResolver, TopupResolver, BalanceResolver, EventResolver, EventSubscriptionResolver, WebhookResolver, PaymentResolver, MethodResolver, AuditResolver];

let cached: GraphQLSchema | undefined;

/**
 * type-graphql insists on a PubSub once a schema has subscriptions, even when every
 * subscription brings its own `subscribe` (ours read the event outbox; see EventHub).
 */
const NO_PUBSUB = {
  publish: (): void => undefined,
  subscribe: (): AsyncIterable<unknown> => {
    throw new Error('topic-based subscriptions are not used; subscriptions read the event outbox');
  },
};

export function buildGraphQLSchema(): GraphQLSchema {
  cached ??= buildSchemaSync({ resolvers: RESOLVERS, validate: false, pubSub: NO_PUBSUB });
  return cached;
}

/** The committed SDL: sorted so that diffs show real changes only. */
export function printGraphQLSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildGraphQLSchema()))}\n`;
}
