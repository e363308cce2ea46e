/** REST routes for method discovery and the merchant's method settings: translate HTTP <-> MethodRouting / MethodSettings. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, sendJson } from '../../http/plumbing';
import { operationRoute } from '../../http/dispatch';

export function registerMethodRoutes(fastify: FastifyInstance, app: App): void {
  const { methodRouting, methodSettings } = app;

  // A page envelope (CONTRACT.md): the whole result is one page.
  fastify.get('/v1/payment_method_options', async (req, reply) =>
    sendJson(reply, 200, { data: await methodRouting.discover(ctxOf(req), req.query as Record<string, unknown>), has_more: false, next_cursor: null }));

  fastify.get('/v1/payment_method_settings', async (req, reply) => sendJson(reply, 200, { data: await methodSettings.listSettings(ctxOf(req)) }));

  operationRoute(fastify, app, 'post', '/v1/payment_method_settings/:payment_method', app.ops.methods.updateSetting);
}
