/**
 * What the GraphQL surface needs of the application (`GraphQLHost`: the App has all of it;
 * nothing else of it is reachable from here), and the services it shares across operations.
 */
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Credentials, RevocationFeed } from '../domain/scope';
import type { PublicBaseUrl } from '../domain/public-url';
import type { Composition } from '../modules';
import type { OperationPipeline } from '../ops/pipeline';
import type { GraphServices } from './context';
import { createLoaders } from './loaders';

export interface GraphQLHost {
  config: Pick<Config, 'nodeEnv'>;
  log: Logger;
  /** Every module's services: the resolvers and the DataLoaders are built from them. */
  modules: Composition;
  /** Every mutation runs through this pipeline (as REST's do). */
  pipeline: OperationPipeline;
  /** Who is calling a graphql-ws socket: its connection params, or the dashboard's session cookie. */
  credentials: Credentials;
  publicUrl: PublicBaseUrl;
  /** Closes the sockets of revoked keys. */
  revocations: RevocationFeed;
  /** Closes the sockets of ended sessions. */
  sessionWatch: RevocationFeed;
}

const byHost = new WeakMap<object, GraphServices>();

export function graphServices(host: Pick<GraphQLHost, 'modules' | 'pipeline'>): GraphServices {
  let services = byHost.get(host);
  if (!services) {
    const { modules, pipeline } = host;
    services = { pipeline, get: (Resolver) => modules.resolver(Resolver), loaders: (ctx) => createLoaders(modules, ctx) };
    byHost.set(host, services);
  }
  return services;
}
