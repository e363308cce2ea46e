/** REST routes for topup intents: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { RouteKit } from '../module';
import type { topupOperations } from './topup.operations';
import { listRoute, operationRoute, readRoute } from '../../http/dispatch';
import { TOPUP_ROUTES as doc } from './topup.schemas';
import { TOPUP_LIST, type TopupService } from './topup.service';

export function registerTopupRoutes(
  fastify: FastifyInstance,
  { topups, ops }: { topups: TopupService; ops: ReturnType<typeof topupOperations> },
  { pipeline }: RouteKit,
): void {
  operationRoute(fastify, pipeline, 'post', '/v1/topup_intents', ops.create, { doc: doc.create });
  listRoute(fastify, '/v1/topup_intents', doc.list, TOPUP_LIST, async (ctx, query) => topups.list(ctx, topups.parseList(ctx, query)));
  readRoute(fastify, '/v1/topup_intents/:id', doc.get, (ctx, _query, { id }) => topups.get(ctx, id));
  operationRoute(fastify, pipeline, 'post', '/v1/test_helpers/topup_intents/:id/succeed', ops.testSucceed, { doc: doc.testSucceed });
  operationRoute(fastify, pipeline, 'post', '/v1/test_helpers/topup_intents/:id/fail', ops.testFail, { doc: doc.testFail });
}
