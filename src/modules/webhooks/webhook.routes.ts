/** REST routes for webhook endpoints, their delivery attempts and event resends: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { RouteKit } from '../module';
import type { webhookOperations } from './webhook.operations';
import type { WebhookEndpointService } from './webhook-endpoint.service';
import { listRoute, operationRoute, readRoute } from '../../http/dispatch';
import { ATTEMPT_LIST, ENDPOINT_LIST, WEBHOOK_ROUTES as doc } from './webhook.schemas';

export function registerWebhookRoutes(
  fastify: FastifyInstance,
  { webhookEndpoints: endpoints, ops }: { webhookEndpoints: WebhookEndpointService; ops: ReturnType<typeof webhookOperations> },
  { pipeline }: RouteKit,
): void {
  operationRoute(fastify, pipeline, 'post', '/v1/webhook_endpoints', ops.create, { doc: doc.create });
  listRoute(fastify, '/v1/webhook_endpoints', doc.list, ENDPOINT_LIST, async (ctx, query) => endpoints.list(ctx, endpoints.parseList(ctx, query)));
  readRoute(fastify, '/v1/webhook_endpoints/:id', doc.get, (ctx, _query, { id }) => endpoints.get(ctx, id));
  operationRoute(fastify, pipeline, 'post', '/v1/webhook_endpoints/:id', ops.update, { doc: doc.update });
  operationRoute(fastify, pipeline, 'delete', '/v1/webhook_endpoints/:id', ops.remove, { doc: doc.remove });
  operationRoute(fastify, pipeline, 'post', '/v1/webhook_endpoints/:id/rotate_secret', ops.rotateSecret, { doc: doc.rotateSecret });
  // The resend is the webhooks module's (it makes a delivery), under the event's path.
  operationRoute(fastify, pipeline, 'post', '/v1/events/:id/resend', ops.resend, { doc: doc.resend });
  listRoute(fastify, '/v1/webhook_endpoints/:id/attempts', doc.attempts, ATTEMPT_LIST, async (ctx, query, { id }) =>
    endpoints.listAttempts(ctx, id, endpoints.parseAttemptList(ctx, id, query)),
  );
}
