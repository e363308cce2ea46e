/**
 * What a module declares about itself. The assemblers (data source, GraphQL schema,
 * loaders, REST server, OpenAPI components) iterate the registry in `./index.ts`; none of
 * them, and nothing in the kernel (`domain/`, `db/`), imports a module by name.
 */
import type { TSchema } from '@sinclair/typebox';
import type DataLoader from 'dataloader';
import type { FastifyInstance } from 'fastify';
import type { App } from '../app';
import type { RequestContext } from '../domain/scope';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LoaderMap = Record<string, DataLoader<string, any>>;

/** A column that holds a value sealed by the data key (FieldCipher): rewrapped when the key rotates. */
export interface SealedColumn {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entity: Function;
  property: string;
}

export interface ModuleDefinition<L extends LoaderMap = LoaderMap> {
  name: string;
  /** TypeORM entity classes; their tables come from the migrations in `db/migrations`. */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: Function[];
  /** type-graphql resolver classes. */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  resolvers?: Function[];
  /** Registers the module's REST routes (and pages). */
  routes?(fastify: FastifyInstance, app: App): void | Promise<void>;
  /** Per-request DataLoaders, merged into the GraphQL context's `loaders`. */
  loaders?(app: App, ctx: RequestContext): L;
  /** Wire records the module's routes answer with (TypeBox schemas with an `$id`): the document's components. */
  models?: TSchema[];
  /** Columns sealed by the data key (`cli data-key rewrap` re-encrypts them with the current key). */
  sealed?: SealedColumn[];
}

/** Keeps the loaders' types, so that `GqlContext['loaders']` is typed per key. */
export function defineModule<L extends LoaderMap = Record<never, never>>(module: ModuleDefinition<L>): ModuleDefinition<L> {
  return module;
}

/** One DataLoader answer per key, in key order, from a map of what was found. */
export function byKey<K, V>(keys: readonly K[], found: Map<K, V>): (V | null)[] {
  return keys.map((k) => found.get(k) ?? null);
}
