/** REST routes for refunds: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { RefundService } from './refund.service';
import type { RouteKit } from '../module';
import type { refundOperations } from './refund.operations';
import { listRoute, operationRoute, readRoute } from '../../http/dispatch';
import { REFUND_LIST, REFUND_ROUTES as doc } from './refund.schemas';

export function registerRefundRoutes(
  fastify: FastifyInstance,
  { refunds, ops }: { refunds: RefundService; ops: ReturnType<typeof refundOperations> },
  { pipeline }: RouteKit,
): void {
  operationRoute(fastify, pipeline, 'post', '/v1/refunds', ops.create, { doc: doc.create });
  listRoute(fastify, '/v1/refunds', doc.list, REFUND_LIST, async (ctx, query) => refunds.list(ctx, refunds.parseList(ctx, query)));
  readRoute(fastify, '/v1/refunds/:id', doc.get, (ctx, _query, { id }) => refunds.get(ctx, id));
  operationRoute(fastify, pipeline, 'post', '/v1/test_helpers/refunds/:id/succeed', ops.testSucceed, { doc: doc.testSucceed });
  operationRoute(fastify, pipeline, 'post', '/v1/test_helpers/refunds/:id/fail', ops.testFail, { doc: doc.testFail });
}
