/** REST compatibility routes for payout intents: translate HTTP <-> PayoutService, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, idempotencyKeyOf, sendJson, sendResult } from '../../http/plumbing';
import { pageEnvelope } from '../../http/envelope';
import { testHelperGuard } from '../../http/test-helpers';

type WithId = { Params: { id: string } };

export function registerPayoutRoutes(fastify: FastifyInstance, app: App): void {
  const { payouts } = app;

  fastify.post('/v1/payout_intents', async (req, reply) =>
    sendResult(reply, await payouts.create(ctxOf(req), req.body, idempotencyKeyOf(req))));

  fastify.get('/v1/payout_intents', async (req, reply) => {
    const ctx = ctxOf(req);
    const params = payouts.parseList(ctx, req.query as Record<string, unknown>);
    return sendJson(reply, 200, pageEnvelope(await payouts.list(ctx, params)));
  });

  fastify.get<WithId>('/v1/payout_intents/:id', async (req, reply) =>
    sendJson(reply, 200, await payouts.get(ctxOf(req), req.params.id)));

  fastify.post<WithId>('/v1/payout_intents/:id/approve', async (req, reply) =>
    sendResult(reply, await payouts.approve(ctxOf(req), req.params.id, req.body, idempotencyKeyOf(req))));

  fastify.post<WithId>('/v1/payout_intents/:id/cancel', async (req, reply) =>
    sendResult(reply, await payouts.cancel(ctxOf(req), req.params.id, req.body, idempotencyKeyOf(req))));

  for (const outcome of ['succeed', 'fail'] as const) {
    fastify.post<WithId>(`/v1/test_helpers/payout_intents/:id/${outcome}`, { preHandler: testHelperGuard }, async (req, reply) =>
      sendResult(reply, await payouts.testSettle(ctxOf(req), req.params.id, outcome, req.body, idempotencyKeyOf(req))));
  }
}
