/** Builds the GraphQL schema from the modules' resolvers; `schema.graphql` is this schema printed. */
import 'reflect-metadata';
import { GraphQLFieldResolver, GraphQLSchema, isObjectType, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync, getMetadataStorage, NonEmptyArray, type ResolverData } from 'type-graphql';
import type { GqlContext } from './context';
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
  cached ??= plainPropertyFields(buildSchemaSync({ resolvers, validate: false, pubSub: NO_PUBSUB, container }));
  return cached;
}

const propertyReaders = new Map<string, GraphQLFieldResolver<Record<string, unknown>, unknown>>();
const propertyOfReader = new WeakMap<GraphQLFieldResolver<Record<string, unknown>, unknown>, string>();
function propertyReader(name: string): GraphQLFieldResolver<Record<string, unknown>, unknown> {
  let read = propertyReaders.get(name);
  if (!read) {
    propertyReaders.set(name, (read = (source) => source[name]));
    propertyOfReader.set(read, name);
  }
  return read;
}

/** The property a field's resolver reads, when that resolver is one of the one-line readers below; else undefined. */
export function propertyReadBy(resolve: unknown): string | undefined {
  return typeof resolve === 'function' ? propertyOfReader.get(resolve as GraphQLFieldResolver<Record<string, unknown>, unknown>) : undefined;
}

/**
 * type-graphql gives every plain `@Field` property a resolver of its own that builds a
 * resolver-data object and runs the (here always empty) middleware chain before reading
 * `root[property]`. Those fields become what they are: no resolver at all where the schema
 * name is the property name (graphql-js's and graphql-jit's default property read, which
 * graphql-jit inlines), else a one-line property read (`merchantReference` reads
 * `merchant_reference`). Fields with a `@FieldResolver`, arguments, middlewares or roles keep
 * type-graphql's resolver. The SDL is unchanged: only `resolve` functions are replaced.
 * A type's fields include those it inherits from abstract classes (`IntentFields`: id,
 * amount, ..., createdAt of every intent type), which are not types of their own.
 */
function plainPropertyFields(schema: GraphQLSchema): GraphQLSchema {
  const storage = getMetadataStorage();
  const fieldResolverOf = new Set(storage.fieldResolvers.map((r) => `${r.getObjectType?.()?.name ?? ''}.${r.methodName}`));
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  const metaOf = new Map<Function, (typeof storage.objectTypes)[number]>(storage.objectTypes.map((m) => [m.target, m]));
  for (const meta of storage.objectTypes) {
    const type = schema.getType(meta.name);
    if (!isObjectType(type)) continue;
    const fields = type.getFields();
    // Own fields first, then each ancestor's (an own field of the same property overrides).
    const declared = [...(meta.fields ?? [])];
    for (let parent = Object.getPrototypeOf(meta.target); parent && parent !== Function.prototype; parent = Object.getPrototypeOf(parent)) {
      for (const field of metaOf.get(parent)?.fields ?? []) if (!declared.some((d) => d.name === field.name)) declared.push(field);
    }
    for (const field of declared) {
      const gqlField = fields[field.schemaName];
      if (!gqlField || !gqlField.resolve) continue;
      if ([field.name, field.schemaName].some((n) => fieldResolverOf.has(`${meta.target.name}.${n}`) || fieldResolverOf.has(`${field.target.name}.${n}`))) continue;
      if ((field.params?.length ?? 0) > 0 || (field.middlewares?.length ?? 0) > 0 || field.roles !== undefined) continue;
      gqlField.resolve = field.name === field.schemaName ? undefined : propertyReader(field.name);
    }
  }
  return schema;
}

/** The committed SDL: sorted so that diffs show real changes only. */
export function printGraphQLSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildGraphQLSchema()))}\n`;
}
