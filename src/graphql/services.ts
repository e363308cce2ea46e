/** The GraphQL surface's shared services of one application: the pipeline, the resolver instances and the loaders' factory. */
import type { App } from '../app';
import type { GraphServices } from './context';
import { createLoaders } from './loaders';

const byApp = new WeakMap<object, GraphServices>();

export function graphServices(app: Pick<App, 'modules' | 'pipeline'>): GraphServices {
  let services = byApp.get(app);
  if (!services) {
    const { modules, pipeline } = app;
    services = { pipeline, get: (Resolver) => modules.resolver(Resolver), loaders: (ctx) => createLoaders(modules, ctx) };
    byApp.set(app, services);
  }
  return services;
}
