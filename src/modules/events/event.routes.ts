/** REST routes for events: each names its read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { listQuerySchema } from '../../domain/listing';
import { readRoute } from '../../http/dispatch';
import { pageEnvelope } from '../../http/envelope';
import { EVENT_LIST, EVENT_ROUTES as doc } from './event.schemas';

export function registerEventRoutes(fastify: FastifyInstance, app: App): void {
  const { events } = app;

  readRoute(fastify, '/v1/events', { ...doc.list, query: listQuerySchema(EVENT_LIST) },
    async (ctx, query) => pageEnvelope(await events.list(ctx, await events.parseList(ctx, query as Record<string, unknown>))));
  readRoute(fastify, '/v1/events/:id', doc.get, (ctx, _query, { id }) => events.get(ctx, id));
}
