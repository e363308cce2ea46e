import type { App } from '../app';
import type { RequestContext } from '../modules/auth/request-context';
import { createLoaders, Loaders } from './loaders';

/** Per-operation GraphQL context: who is calling, the Idempotency-Key header, and fresh DataLoaders. */
export interface GqlContext {
  app: App;
  ctx: RequestContext;
  idempotencyKey?: string;
  loaders: Loaders;
  /** Base of links the operation creates (hosted checkout): PUBLIC_BASE_URL, else the request's Host. */
  baseUrl?: string;
  /** Set when a mutation of this operation answered from the idempotency store. */
  replayed: boolean;
}

export function createContext(app: App, ctx: RequestContext, idempotencyKey?: string, baseUrl?: string): GqlContext {
  return { app, ctx, idempotencyKey, loaders: createLoaders(app, ctx), baseUrl, replayed: false };
}
