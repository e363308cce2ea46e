/** REST compatibility routes for payout intents: each names its operation or read, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, sendJson } from '../../http/plumbing';
import { pageEnvelope } from '../../http/envelope';
import { operationRoute } from '../../http/dispatch';

type WithId = { Params: { id: string } };

export function registerPayoutRoutes(fastify: FastifyInstance, app: App): void {
  const { payouts } = app;
  const ops = app.ops.payouts;

  operationRoute(fastify, app, 'post', '/v1/payout_intents', ops.create);

  fastify.get('/v1/payout_intents', async (req, reply) => {
    const ctx = ctxOf(req);
    const params = payouts.parseList(ctx, req.query as Record<string, unknown>);
    return sendJson(reply, 200, pageEnvelope(await payouts.list(ctx, params)));
  });

  fastify.get<WithId>('/v1/payout_intents/:id', async (req, reply) =>
    sendJson(reply, 200, await payouts.get(ctxOf(req), req.params.id)));

  operationRoute(fastify, app, 'post', '/v1/payout_intents/:id/approve', ops.approve);
  operationRoute(fastify, app, 'post', '/v1/payout_intents/:id/cancel', ops.cancel);
  operationRoute(fastify, app, 'post', '/v1/test_helpers/payout_intents/:id/succeed', ops.testSucceed);
  operationRoute(fastify, app, 'post', '/v1/test_helpers/payout_intents/:id/fail', ops.testFail);
}
