/** REST routes for webhook endpoints and their delivery attempts: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { listRoute, operationRoute, readRoute } from '../../http/dispatch';
import { ATTEMPT_LIST, ENDPOINT_LIST, WEBHOOK_ROUTES as doc } from './webhook.schemas';

export function registerWebhookRoutes(fastify: FastifyInstance, app: App): void {
  const endpoints = app.webhookEndpoints;
  const ops = app.ops.webhooks;

  operationRoute(fastify, app, 'post', '/v1/webhook_endpoints', ops.create, { doc: doc.create });
  listRoute(fastify, '/v1/webhook_endpoints', doc.list, ENDPOINT_LIST, async (ctx, query) => endpoints.list(ctx, endpoints.parseList(ctx, query)));
  readRoute(fastify, '/v1/webhook_endpoints/:id', doc.get, (ctx, _query, { id }) => endpoints.get(ctx, id));
  operationRoute(fastify, app, 'delete', '/v1/webhook_endpoints/:id', ops.remove, { doc: doc.remove });
  listRoute(fastify, '/v1/webhook_endpoints/:id/attempts', doc.attempts, ATTEMPT_LIST,
    async (ctx, query, { id }) => endpoints.listAttempts(ctx, id, endpoints.parseAttemptList(ctx, id, query)));
}
