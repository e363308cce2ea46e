/** REST compatibility routes for payout intents: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { listRoute, operationRoute, readRoute } from '../../http/dispatch';
import { PAYOUT_ROUTES as doc } from './payout.schemas';
import { PAYOUT_LIST } from './payout.service';

export function registerPayoutRoutes(fastify: FastifyInstance, app: App): void {
  const { payouts } = app;
  const ops = app.ops.payouts;

  operationRoute(fastify, app, 'post', '/v1/payout_intents', ops.create, { doc: doc.create });
  listRoute(fastify, '/v1/payout_intents', doc.list, PAYOUT_LIST, async (ctx, query) => payouts.list(ctx, payouts.parseList(ctx, query)));
  readRoute(fastify, '/v1/payout_intents/:id', doc.get, (ctx, _query, { id }) => payouts.get(ctx, id));
  operationRoute(fastify, app, 'post', '/v1/payout_intents/:id/approve', ops.approve, { doc: doc.approve });
  operationRoute(fastify, app, 'post', '/v1/payout_intents/:id/cancel', ops.cancel, { doc: doc.cancel });
  operationRoute(fastify, app, 'post', '/v1/test_helpers/payout_intents/:id/succeed', ops.testSucceed, { doc: doc.testSucceed });
  operationRoute(fastify, app, 'post', '/v1/test_helpers/payout_intents/:id/fail', ops.testFail, { doc: doc.testFail });
}
