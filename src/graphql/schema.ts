/** Builds the GraphQL schema from the modules' resolvers; `schema.graphql` is this schema printed. */
import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync, NonEmptyArray } from 'type-graphql';
import { MODULES } from '../modules';

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
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  const resolvers = MODULES.flatMap((m) => m.resolvers ?? []) as NonEmptyArray<Function>;
  cached ??= buildSchemaSync({ resolvers, validate: false, pubSub: NO_PUBSUB });
  return cached;
}

/** The committed SDL: sorted so that diffs show real changes only. */
export function printGraphQLSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildGraphQLSchema()))}\n`;
}
