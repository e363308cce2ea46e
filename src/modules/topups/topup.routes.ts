/** REST routes for topup intents: translate HTTP <-> TopupService. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, idempotencyKeyOf, sendJson, sendResult } from '../../http/plumbing';
import { pageEnvelope } from '../../http/envelope';
import { testHelperGuard } from '../../http/test-helpers';

type WithId = { Params: { id: string } };

export function registerTopupRoutes(fastify: FastifyInstance, app: App): void {
  const { topups } = app;

  fastify.post('/v1/topup_intents', async (req, reply) =>
    sendResult(reply, await topups.create(ctxOf(req), req.body, idempotencyKeyOf(req))));

  fastify.get('/v1/topup_intents', async (req, reply) => {
    const ctx = ctxOf(req);
    return sendJson(reply, 200, pageEnvelope(await topups.list(ctx, topups.parseList(ctx, req.query as Record<string, unknown>))));
  });

  fastify.get<WithId>('/v1/topup_intents/:id', async (req, reply) => sendJson(reply, 200, await topups.get(ctxOf(req), req.params.id)));

  for (const outcome of ['succeed', 'fail'] as const) {
    fastify.post<WithId>(`/v1/test_helpers/topup_intents/:id/${outcome}`, { preHandler: testHelperGuard }, async (req, reply) =>
      sendResult(reply, await topups.testSettle(ctxOf(req), req.params.id, outcome, req.body, idempotencyKeyOf(req))));
  }
}
