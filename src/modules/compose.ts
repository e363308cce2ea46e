/**
 * Builds every module's services, each after the modules it uses (a depth-first walk of
 * `uses`, in registry order otherwise), and keeps them by module: the REST server, the
 * GraphQL schema's resolver instances, the loaders and the scheduler read them from here.
 */
import type { Config } from '../config';
import type { AnyModule, Kernel, ModuleDefinition, ModuleJob, ServicesOf, Uses } from './module';

export class Composition {
  private readonly services = new Map<AnyModule, object>();
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  private readonly resolvers = new Map<Function, object>();
  /** The modules in the order their services were built. */
  readonly order: AnyModule[] = [];

  constructor(modules: readonly AnyModule[], kernel: Kernel) {
    const visiting = new Set<AnyModule>();
    const build = (module: ModuleDefinition<object, Uses>): void => {
      if (this.services.has(module)) return;
      if (visiting.has(module)) throw new Error(`module ${module.name} uses itself through ${[...visiting].map((m) => m.name).join(' -> ')}`);
      visiting.add(module);
      const uses: Record<string, object> = {};
      const declared: Record<string, ModuleDefinition<object, Uses>> = module.uses ?? {};
      for (const [key, used] of Object.entries(declared)) {
        if (!modules.includes(used)) throw new Error(`module ${module.name} uses ${used.name}, which is not in the registry`);
        build(used);
        uses[key] = this.services.get(used)!;
      }
      visiting.delete(module);
      const services: object = module.provide?.(kernel, uses) ?? {};
      this.services.set(module, services);
      for (const Resolver of module.resolvers ?? []) this.resolvers.set(Resolver, new Resolver(services as never));
      this.order.push(module);
    };
    for (const module of modules) build(module as ModuleDefinition<object, Uses>);
  }

  /** The services `module` provides. */
  of<M extends AnyModule>(module: M): ServicesOf<M> {
    const services = this.services.get(module);
    if (!services) throw new Error(`module ${module.name} is not composed`);
    return services as ServicesOf<M>;
  }

  /** The instance of a resolver class, built with its module's services. */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  resolver(Resolver: Function): object {
    const instance = this.resolvers.get(Resolver);
    if (!instance) throw new Error(`resolver ${Resolver.name} belongs to no composed module`);
    return instance;
  }

  /** Every module's jobs, in build order. */
  jobs(config: Config): ModuleJob[] {
    return this.order.flatMap((m) => m.jobs?.(this.of(m), config) ?? []);
  }

  /** Stops the modules, the last built first. */
  async close(): Promise<void> {
    for (const module of [...this.order].reverse()) await module.close?.(this.of(module));
  }
}
