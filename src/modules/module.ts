/**
 * What a module declares about itself, and how it builds its services. The assemblers
 * (data source, GraphQL schema, loaders, REST server, OpenAPI components) iterate the
 * registry in `./index.ts`, which also composes the modules' services in dependency order;
 * none of them, and nothing in the kernel (`domain/`, `db/`), imports a module by name.
 *
 * A module's `provide` receives the kernel (configuration, logger, database, data key, Redis)
 * and the services of the modules it names in `uses`, and returns its own services. Its
 * routes, resolvers, loaders and jobs receive those services, and nothing else of the
 * application: a route or resolver file states what it needs as the type of its parameter.
 */
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { Db } from '../db/db';
import type { RedisBus } from '../db/redis';
import type { FieldCipher } from '../domain/crypto';
import type { PublicBaseUrl } from '../domain/public-url';
import type { RequestContext } from '../domain/scope';
import type { Loaders } from '../graphql/context';
import type { Job } from '../jobs/scheduler';
import type { OperationPipeline } from '../ops/pipeline';

/** What every module may build on: the application's shared infrastructure. */
export interface Kernel {
  config: Config;
  log: Logger;
  db: Db;
  dataSource: DataSource;
  /** The data keyring: the current key seals, earlier keys still open. */
  cipher: FieldCipher;
  /** The shared Redis connections when REDIS_URL is set. */
  redis?: RedisBus;
  /** The base of every link the service gives out (PUBLIC_BASE_URL). */
  publicUrl: PublicBaseUrl;
}

/** What a module's REST routes are given beside its services. */
export interface RouteKit {
  /** Every state-changing call runs through this pipeline (REST and GraphQL alike). */
  pipeline: Pick<OperationPipeline, 'run'>;
}

/** A scheduled job; `last`: runs after every other job of the pass (it handles what they wrote). */
export type ModuleJob = Job & { last?: true };

/** A column that holds a value sealed by the data key (FieldCipher): rewrapped when the key rotates. */
export interface SealedColumn {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entity: Function;
  property: string;
}

/** Any module, whatever services it provides. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyModule = ModuleDefinition<any, Uses>;
/** The modules a module builds on, by the name its `provide` receives their services under. */
export interface Uses {
  [name: string]: AnyModule;
}
/** The services a module provides. */
export type ServicesOf<M> = M extends ModuleDefinition<infer S, Uses> ? S : never;
export type UsedServices<U extends Uses> = { [K in keyof U]: ServicesOf<U[K]> };

export interface ModuleDefinition<S extends object = object, U extends Uses = Uses> {
  name: string;
  /** The modules whose services `provide` receives; the registry builds them first. */
  uses?: U;
  /** Builds the module's services. */
  provide?(kernel: Kernel, uses: UsedServices<U>): S;
  /** TypeORM entity classes; their tables come from the migrations in `db/migrations`. */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: Function[];
  /**
   * type-graphql resolver classes, each constructed once with the module's services (the
   * schema's `container` hands type-graphql these instances).
   */
  resolvers?: (new (services: never) => object)[];
  /** Registers the module's REST routes (and pages). */
  routes?(fastify: FastifyInstance, services: NoInfer<S>, kit: RouteKit): void | Promise<void>;
  /** Per-request DataLoaders, merged into the GraphQL context's `loaders` (their types: `Loaders` in graphql/context.ts). */
  loaders?(services: NoInfer<S>, ctx: RequestContext): Partial<Loaders>;
  /** The module's scheduled jobs. */
  jobs?(services: NoInfer<S>, config: Config): ModuleJob[];
  /** Stops what the module started (timers, sockets, in-flight work); runs before the database closes. */
  close?(services: NoInfer<S>): void | Promise<void>;
  /** Wire records the module's routes answer with (TypeBox schemas with an `$id`): the document's components. */
  models?: TSchema[];
  /** Columns sealed by the data key (`cli data-key rewrap` re-encrypts them with the current key). */
  sealed?: SealedColumn[];
}

/** Keeps the types of the module's services, so its routes, resolvers and loaders are checked against them. */
export function defineModule<S extends object = Record<never, never>, U extends Uses = Record<never, never>>(
  module: ModuleDefinition<S, U>,
): ModuleDefinition<S, U> {
  return module;
}

/** One DataLoader answer per key, in key order, from a map of what was found. */
export function byKey<K, V>(keys: readonly K[], found: Map<K, V>): (V | null)[] {
  return keys.map((k) => found.get(k) ?? null);
}
