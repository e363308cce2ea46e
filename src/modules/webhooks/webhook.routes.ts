/** REST routes for webhook endpoints and their delivery attempts: translate HTTP <-> WebhookEndpointService. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, sendJson } from '../../http/plumbing';
import { operationRoute } from '../../http/dispatch';
import { pageEnvelope } from '../../http/envelope';

type WithId = { Params: { id: string } };

export function registerWebhookRoutes(fastify: FastifyInstance, app: App): void {
  const endpoints = app.webhookEndpoints;

  operationRoute(fastify, app, 'post', '/v1/webhook_endpoints', app.ops.webhooks.create);

  fastify.get('/v1/webhook_endpoints', async (req, reply) => {
    const ctx = ctxOf(req);
    return sendJson(reply, 200, pageEnvelope(await endpoints.list(ctx, endpoints.parseList(ctx, req.query as Record<string, unknown>))));
  });

  fastify.get<WithId>('/v1/webhook_endpoints/:id', async (req, reply) =>
    sendJson(reply, 200, await endpoints.get(ctxOf(req), req.params.id)));

  operationRoute(fastify, app, 'delete', '/v1/webhook_endpoints/:id', app.ops.webhooks.remove);

  fastify.get<WithId>('/v1/webhook_endpoints/:id/attempts', async (req, reply) => {
    const ctx = ctxOf(req);
    const params = endpoints.parseAttemptList(ctx, req.params.id, req.query as Record<string, unknown>);
    return sendJson(reply, 200, pageEnvelope(await endpoints.listAttempts(ctx, req.params.id, params)));
  });
}
