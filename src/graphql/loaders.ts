/**
 * DataLoaders, created per request (and per subscription event), never shared: each
 * batches one scoped statement per tick, so N lookups in a query cost one SELECT. Each
 * module declares its own (`x.module.ts`); this merges them.
 *
 * A module's loaders are built the first time one of its keys is read: most operations use
 * one loader or none (lists read their page directly), so a request does not pay for
 * building every module's DataLoaders.
 */
import type { RequestContext } from '../domain/scope';
import { MODULES, type AnyModule, type Composition } from '../modules';
import type { Loaders } from './context';

const SERVICES = Symbol('services');
const CTX = Symbol('ctx');

interface Pending {
  [SERVICES]: Composition;
  [CTX]: RequestContext;
}

/**
 * The prototype of every request's loaders: one getter per loader key, which builds that
 * key's module's loaders for this request, keeps them as own (writable, enumerable)
 * properties and returns the one asked for. Built on the first call, from the keys the
 * modules' factories return (a factory only constructs DataLoaders; nothing runs).
 */
let lazyPrototype: object | undefined;

function buildPrototype(services: Composition, ctx: RequestContext): object {
  // Key -> the module that provides it (a later module wins, as Object.assign did).
  const owner = new Map<string, AnyModule>();
  for (const module of MODULES) if (module.loaders) for (const key of Object.keys(module.loaders(services.of(module), ctx))) owner.set(key, module);
  const proto = {};
  for (const [key, module] of owner) {
    Object.defineProperty(proto, key, {
      configurable: true,
      enumerable: false,
      get(this: Pending) {
        const made = module.loaders!(this[SERVICES].of(module), this[CTX]) as Record<string, unknown>;
        for (const [k, value] of Object.entries(made)) {
          if (owner.get(k) === module) Object.defineProperty(this, k, { value, writable: true, enumerable: true, configurable: true });
        }
        return made[key];
      },
    });
  }
  return proto;
}

export function createLoaders(services: Composition, ctx: RequestContext): Loaders {
  lazyPrototype ??= buildPrototype(services, ctx);
  const loaders = Object.create(lazyPrototype) as Pending;
  loaders[SERVICES] = services;
  loaders[CTX] = ctx;
  return loaders as unknown as Loaders;
}
