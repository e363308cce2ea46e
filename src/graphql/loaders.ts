/**
 * DataLoaders, created per request (and per subscription event), never shared: each
 * batches one scoped statement per tick, so N lookups in a query cost one SELECT. Each
 * module declares its own (`x.module.ts`); this merges them. Building every module's
 * loaders costs about 3 µs of CPU per request (docs/performance.md).
 */
import type { RequestContext } from '../domain/scope';
import { MODULES, type Composition } from '../modules';
import type { Loaders } from './context';

export function createLoaders(services: Composition, ctx: RequestContext): Loaders {
  const loaders = {};
  for (const module of MODULES) if (module.loaders) Object.assign(loaders, module.loaders(services.of(module), ctx));
  return loaders as Loaders;
}
