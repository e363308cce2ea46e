/**
 * The GraphQL context of an operation, and the services every resolver shares. It imports
 * no module: each module declares its DataLoaders' types on `Loaders` (declaration merging,
 * in its `x.module.ts`), and resolvers receive their module's services as constructor
 * arguments (the schema's `container`, schema.ts), not through the context.
 */
import type { OperationPipeline } from '../ops/pipeline';
import type { RequestContext } from '../domain/scope';

/** Every module's per-request DataLoaders, by key; each module adds its own keys. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Loaders {}

/** What the GraphQL surface shares across operations (one per application). */
export interface GraphServices {
  /** Every mutation runs through this pipeline (as REST's do). */
  pipeline: Pick<OperationPipeline, 'run'>;
  /** type-graphql's container: the resolver instance of a class, built with its module's services. */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  get(Resolver: Function): object;
  /** Fresh DataLoaders for one request (or one subscription event). */
  loaders(ctx: RequestContext): Loaders;
}

/** Per-operation GraphQL context: who is calling, the Idempotency-Key header, and fresh DataLoaders. */
export interface GqlContext {
  services: GraphServices;
  ctx: RequestContext;
  idempotencyKey?: string;
  loaders: Loaders;
  /** Set when a mutation of this operation answered from the idempotency store. */
  replayed: boolean;
  /** The response key (alias or name) of the mutation field running now: mutation fields run one at a time. */
  mutationField?: string;
  /** The mutation fields whose answer is an existing record (a repeated merchantReference or an idempotent replay). */
  deduplicated?: string[];
  /** Whether the caller may resolve each declared field, decided once per operation (access.ts). */
  permissions?: Map<object, boolean>;
}

export function createContext(services: GraphServices, ctx: RequestContext, idempotencyKey?: string): GqlContext {
  return { services, ctx, idempotencyKey, loaders: services.loaders(ctx), replayed: false };
}
