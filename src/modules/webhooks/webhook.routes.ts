/** REST routes for webhook endpoints and their delivery attempts: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { listQuerySchema } from '../../domain/listing';
import { operationRoute, readRoute } from '../../http/dispatch';
import { pageEnvelope } from '../../http/envelope';
import { ATTEMPT_LIST, ENDPOINT_LIST, WEBHOOK_ROUTES as doc } from './webhook.schemas';

export function registerWebhookRoutes(fastify: FastifyInstance, app: App): void {
  const endpoints = app.webhookEndpoints;
  const ops = app.ops.webhooks;

  operationRoute(fastify, app, 'post', '/v1/webhook_endpoints', ops.create, { doc: doc.create });
  readRoute(fastify, '/v1/webhook_endpoints', { ...doc.list, query: listQuerySchema(ENDPOINT_LIST) },
    async (ctx, query) => pageEnvelope(await endpoints.list(ctx, endpoints.parseList(ctx, query as Record<string, unknown>))));
  readRoute(fastify, '/v1/webhook_endpoints/:id', doc.get, (ctx, _query, { id }) => endpoints.get(ctx, id));
  operationRoute(fastify, app, 'delete', '/v1/webhook_endpoints/:id', ops.remove, { doc: doc.remove });
  readRoute(fastify, '/v1/webhook_endpoints/:id/attempts', { ...doc.attempts, query: listQuerySchema(ATTEMPT_LIST) },
    async (ctx, query, { id }) => pageEnvelope(await endpoints.listAttempts(ctx, id, endpoints.parseAttemptList(ctx, id, query as Record<string, unknown>))));
}
