/** REST compatibility routes for payout intents: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { RouteKit } from '../module';
import type { payoutOperations } from './payout.operations';
import { listRoute, operationRoute, readRoute } from '../../http/dispatch';
import { PAYOUT_ROUTES as doc } from './payout.schemas';
import { PAYOUT_LIST, type PayoutService } from './payout.service';

export function registerPayoutRoutes(
  fastify: FastifyInstance,
  { payouts, ops }: { payouts: PayoutService; ops: ReturnType<typeof payoutOperations> },
  { pipeline }: RouteKit,
): void {
  operationRoute(fastify, pipeline, 'post', '/v1/payout_intents', ops.create, { doc: doc.create });
  listRoute(fastify, '/v1/payout_intents', doc.list, PAYOUT_LIST, async (ctx, query) => payouts.list(ctx, payouts.parseList(ctx, query)));
  readRoute(fastify, '/v1/payout_intents/:id', doc.get, (ctx, _query, { id }) => payouts.get(ctx, id));
  operationRoute(fastify, pipeline, 'post', '/v1/payout_intents/:id/approve', ops.approve, { doc: doc.approve });
  operationRoute(fastify, pipeline, 'post', '/v1/payout_intents/:id/cancel', ops.cancel, { doc: doc.cancel });
  operationRoute(fastify, pipeline, 'post', '/v1/test_helpers/payout_intents/:id/succeed', ops.testSucceed, { doc: doc.testSucceed });
  operationRoute(fastify, pipeline, 'post', '/v1/test_helpers/payout_intents/:id/fail', ops.testFail, { doc: doc.testFail });
}
