/** REST routes for payment links: each names its operation or read and its document, nothing more. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { listRoute, operationRoute, readRoute } from '../../http/dispatch';
import { ctxOf } from '../../http/request';
import type { RouteKit } from '../module';
import type { linkOperations } from './link.operations';
import { PAYMENT_LINK_LIST, PAYMENT_LINK_ROUTES as doc } from './link.schemas';
import type { LinkService } from './link.service';

/** The permission resource these routes act on (src/domain/permissions.ts): reads need `payment_links:read`, writes `payment_links:write`. */
export const LINK_RESOURCE = 'payment_links';

export function registerLinkRoutes(
  fastify: FastifyInstance,
  { links, linkOps: ops }: { links: LinkService; linkOps: ReturnType<typeof linkOperations> },
  { pipeline }: RouteKit,
): void {
  operationRoute(fastify, pipeline, 'post', '/v1/payment_links', ops.create, { doc: doc.create });
  listRoute(fastify, '/v1/payment_links', doc.list, PAYMENT_LINK_LIST, async (ctx, query) => links.list(ctx, links.parseList(ctx, query)));
  readRoute(fastify, '/v1/payment_links/:id', doc.get, (ctx, _query, { id }) => links.get(ctx, id));
  operationRoute(fastify, pipeline, 'post', '/v1/payment_links/:id', ops.update, { doc: doc.update });
  fastify.get<{ Params: { id: string } }>(
    '/v1/payment_links/:id/qr.svg',
    {
      config: { permission: doc.qr.permission },
      schema: {
        operationId: doc.qr.operationId,
        summary: doc.qr.summary,
        params: Type.Object({ id: Type.String({ minLength: 1 }) }),
        response: { ...doc.qr.responses, 200: { description: 'The QR code.', content: { 'image/svg+xml': { schema: Type.String() } } } },
      },
    },
    async (req, reply) => {
      // The code first: an unknown link must answer the JSON error, not inherit the SVG headers.
      const svg = await links.qrSvg(ctxOf(req), req.params.id);
      return reply
        .code(200)
        .header('Content-Type', 'image/svg+xml; charset=utf-8')
        .header('Content-Disposition', `inline; filename="${req.params.id}.svg"`)
        .send(svg);
    },
  );
}
