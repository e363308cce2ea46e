/** REST routes for payment intents: each names its operation or read, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, sendJson } from '../../http/plumbing';
import { pageEnvelope } from '../../http/envelope';
import { operationRoute } from '../../http/dispatch';
import { requestBaseUrl } from './base-url';

type WithId = { Params: { id: string } };

export function registerPaymentRoutes(fastify: FastifyInstance, app: App): void {
  const { payments } = app;
  const ops = app.ops.payments;

  operationRoute(fastify, app, 'post', '/v1/payment_intents', ops.create, { argsOf: (req) => ({ baseUrl: requestBaseUrl(app.config, req) }) });

  fastify.get('/v1/payment_intents', async (req, reply) => {
    const ctx = ctxOf(req);
    return sendJson(reply, 200, pageEnvelope(await payments.list(ctx, payments.parseList(ctx, req.query as Record<string, unknown>))));
  });

  fastify.get<WithId>('/v1/payment_intents/:id', async (req, reply) => sendJson(reply, 200, await payments.get(ctxOf(req), req.params.id)));

  operationRoute(fastify, app, 'post', '/v1/payment_intents/:id/cancel', ops.cancel);
  operationRoute(fastify, app, 'post', '/v1/test_helpers/payment_intents/:id/succeed', ops.testSucceed);
  operationRoute(fastify, app, 'post', '/v1/test_helpers/payment_intents/:id/fail', ops.testFail);
  operationRoute(fastify, app, 'post', '/v1/test_helpers/payment_intents/:id/expire', ops.testExpire);
}
