/** REST routes for API keys: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { RouteKit } from '../module';
import { operationRoute, readRoute } from '../../http/dispatch';
import type { apiKeyOperations } from './api-key.operations';
import type { ApiKeyService } from './api-key.service';
import { API_KEY_ROUTES as doc } from './api-key.schemas';

export function registerApiKeyRoutes(
  fastify: FastifyInstance,
  { apiKeys, keyOps }: { apiKeys: ApiKeyService; keyOps: ReturnType<typeof apiKeyOperations> },
  { pipeline }: RouteKit,
): void {
  readRoute(fastify, '/v1/api_keys', doc.list, async (ctx) => ({ data: await apiKeys.list(ctx), has_more: false, next_cursor: null }));
  operationRoute(fastify, pipeline, 'post', '/v1/api_keys', keyOps.create, { doc: doc.create });
  operationRoute(fastify, pipeline, 'post', '/v1/api_keys/:id/roll', keyOps.roll, { doc: doc.roll });
  operationRoute(fastify, pipeline, 'post', '/v1/api_keys/:id/revoke', keyOps.revoke, { doc: doc.revoke });
}
