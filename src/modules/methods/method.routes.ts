/** REST routes for method discovery and the merchant's method settings: each names its operation or read and its document. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { operationRoute, readRoute } from '../../http/dispatch';
import type { TSchema } from '@sinclair/typebox';
import { DiscoveryQuery, METHOD_ROUTES as doc } from './method.schemas';

export function registerMethodRoutes(fastify: FastifyInstance, app: App): void {
  const { methodRouting, methodSettings } = app;

  // A page envelope (CONTRACT.md): the whole result is one page.
  const query: TSchema = DiscoveryQuery;
  readRoute(fastify, '/v1/payment_method_options', { ...doc.discover, query },
    async (ctx, q) => ({ data: await methodRouting.discover(ctx, q as Record<string, unknown>), has_more: false, next_cursor: null }));
  readRoute(fastify, '/v1/payment_method_settings', doc.listSettings, async (ctx) => ({ data: await methodSettings.listSettings(ctx) }));
  operationRoute(fastify, app, 'post', '/v1/payment_method_settings/:payment_method', app.ops.methods.updateSetting, { doc: doc.updateSetting });
}
