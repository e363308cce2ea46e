/**
 * DataLoaders, created per request (and per subscription event), never shared: each
 * batches one scoped statement per tick, so N lookups in a query cost one SELECT. Each
 * module declares its own (`x.module.ts`); this merges them.
 */
import type { App } from '../app';
import type { RequestContext } from '../domain/scope';
import { MODULES, type Loaders } from '../modules';

export type { Loaders } from '../modules';

export function createLoaders(app: App, ctx: RequestContext): Loaders {
  const loaders = {};
  for (const module of MODULES) if (module.loaders) Object.assign(loaders, module.loaders(app, ctx));
  return loaders as Loaders;
}
