/** REST routes for topup intents: each names its operation or read, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, sendJson } from '../../http/plumbing';
import { pageEnvelope } from '../../http/envelope';
import { operationRoute } from '../../http/dispatch';

type WithId = { Params: { id: string } };

export function registerTopupRoutes(fastify: FastifyInstance, app: App): void {
  const { topups } = app;
  const ops = app.ops.topups;

  operationRoute(fastify, app, 'post', '/v1/topup_intents', ops.create);

  fastify.get('/v1/topup_intents', async (req, reply) => {
    const ctx = ctxOf(req);
    return sendJson(reply, 200, pageEnvelope(await topups.list(ctx, topups.parseList(ctx, req.query as Record<string, unknown>))));
  });

  fastify.get<WithId>('/v1/topup_intents/:id', async (req, reply) => sendJson(reply, 200, await topups.get(ctxOf(req), req.params.id)));

  operationRoute(fastify, app, 'post', '/v1/test_helpers/topup_intents/:id/succeed', ops.testSucceed);
  operationRoute(fastify, app, 'post', '/v1/test_helpers/topup_intents/:id/fail', ops.testFail);
}
