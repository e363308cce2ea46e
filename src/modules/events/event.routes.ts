/** REST routes for events: translate HTTP <-> EventService, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, sendJson } from '../../http/plumbing';
import { pageEnvelope } from '../../http/envelope';

export function registerEventRoutes(fastify: FastifyInstance, app: App): void {
  const { events } = app;

  fastify.get('/v1/events', async (req, reply) => {
    const ctx = ctxOf(req);
    const params = await events.parseList(ctx, req.query as Record<string, unknown>);
    return sendJson(reply, 200, pageEnvelope(await events.list(ctx, params)));
  });

  fastify.get<{ Params: { id: string } }>('/v1/events/:id', async (req, reply) =>
    sendJson(reply, 200, await events.get(ctxOf(req), req.params.id)));
}
