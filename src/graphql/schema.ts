/**
 * Builds the GraphQL schema from the modules' resolvers with type-graphql's public
 * `buildSchemaSync`, as it builds it (no resolver is replaced afterwards); `schema.graphql` is
 * this schema printed.
 */
import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync, NonEmptyArray, type ResolverData } from 'type-graphql';
import type { GqlContext } from './context';
import { rootRequirements } from './access';
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
  const resolvers = MODULES.flatMap((m) => m.resolvers ?? []) as unknown as NonEmptyArray<Function>;
  // Resolver instances are built by their modules, with the module's services; type-graphql
  // asks the operation's context for them (a scoped container, one per application).
  const container = ({ context }: ResolverData<GqlContext>) => context.services;
  if (cached) return cached;
  const schema = buildSchemaSync({ resolvers, validate: false, pubSub: NO_PUBSUB, container });
  rootRequirements(schema); // throws when a root field declares no permission
  describeRoots(schema);
  cached = schema;
  return cached;
}

/** type-graphql gives the root types no description: these are theirs. */
const ROOT_DESCRIPTIONS = {
  Query: "Reads, scoped to the calling key's merchant and environment.",
  Mutation: 'State changes: each field runs on its own, in order (its own transaction, event and ledger rows); nullable, so one failure nulls only itself.',
  Subscription: 'Streams over graphql-ws of the outbox events: `after` (an event id) replays what was missed, then the stream goes live.',
} as const;

function describeRoots(schema: GraphQLSchema): void {
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (type && !type.description) type.description = ROOT_DESCRIPTIONS[type.name as keyof typeof ROOT_DESCRIPTIONS];
  }
}

/** The committed SDL: sorted so that diffs show real changes only. */
export function printGraphQLSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildGraphQLSchema()))}\n`;
}
