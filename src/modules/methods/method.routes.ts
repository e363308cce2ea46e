/** REST routes for method discovery and the merchant's method settings: each names its operation or read and its document. */
import type { FastifyInstance } from 'fastify';
import type { RouteKit } from '../module';
import type { MethodRouting } from './method-routing.service';
import type { MethodSettings } from './method-settings.service';
import type { methodOperations } from './method.operations';
import { operationRoute, readRoute } from '../../http/dispatch';
import type { TSchema } from '@sinclair/typebox';
import { DiscoveryQuery, METHOD_ROUTES as doc } from './method.schemas';

export function registerMethodRoutes(
  fastify: FastifyInstance,
  { methodRouting, methodSettings, ops }: { methodRouting: MethodRouting; methodSettings: MethodSettings; ops: ReturnType<typeof methodOperations> },
  { pipeline }: RouteKit,
): void {
  // A page envelope (docs/contract.md): the whole result is one page.
  const query: TSchema = DiscoveryQuery;
  readRoute(fastify, '/v1/payment_method_options', { ...doc.discover, query }, async (ctx, q) => ({
    data: await methodRouting.discover(ctx, q as Record<string, unknown>),
    has_more: false,
    next_cursor: null,
  }));
  readRoute(fastify, '/v1/payment_method_settings', doc.listSettings, async (ctx) => ({ data: await methodSettings.listSettings(ctx) }));
  operationRoute(fastify, pipeline, 'post', '/v1/payment_method_settings/:payment_method', ops.updateSetting, { doc: doc.updateSetting });
}
