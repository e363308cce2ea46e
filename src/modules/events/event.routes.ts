/** REST routes for events: each names its read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import { listRoute, readRoute } from '../../http/dispatch';
import type { EventService } from './event.service';
import { EVENT_LIST, EVENT_ROUTES as doc } from './event.schemas';

export function registerEventRoutes(fastify: FastifyInstance, { events }: { events: EventService }): void {
  listRoute(fastify, '/v1/events', doc.list, EVENT_LIST, async (ctx, query) => events.list(ctx, await events.parseList(ctx, query)));
  readRoute(fastify, '/v1/events/:id', doc.get, (ctx, _query, { id }) => events.get(ctx, id));
}
