/** REST routes for payment intents: translate HTTP <-> PaymentService, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, idempotencyKeyOf, sendJson, sendResult } from '../../http/plumbing';
import { pageEnvelope } from '../../http/envelope';
import { testHelperGuard } from '../../http/test-helpers';
import { requestBaseUrl } from './base-url';

type WithId = { Params: { id: string } };

export function registerPaymentRoutes(fastify: FastifyInstance, app: App): void {
  const { payments } = app;

  fastify.post('/v1/payment_intents', async (req, reply) =>
    sendResult(reply, await payments.create(ctxOf(req), req.body, idempotencyKeyOf(req), requestBaseUrl(app.config, req))));

  fastify.get('/v1/payment_intents', async (req, reply) => {
    const ctx = ctxOf(req);
    return sendJson(reply, 200, pageEnvelope(await payments.list(ctx, payments.parseList(ctx, req.query as Record<string, unknown>))));
  });

  fastify.get<WithId>('/v1/payment_intents/:id', async (req, reply) => sendJson(reply, 200, await payments.get(ctxOf(req), req.params.id)));

  fastify.post<WithId>('/v1/payment_intents/:id/cancel', async (req, reply) =>
    sendResult(reply, await payments.cancel(ctxOf(req), req.params.id, req.body, idempotencyKeyOf(req))));

  for (const action of ['succeed', 'fail', 'expire'] as const) {
    fastify.post<WithId>(`/v1/test_helpers/payment_intents/:id/${action}`, { preHandler: testHelperGuard }, async (req, reply) =>
      sendResult(reply, await payments.testAction(ctxOf(req), req.params.id, action, req.body, idempotencyKeyOf(req))));
  }
}
