/** REST route for the audit log: translate HTTP <-> AuditService. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, sendJson } from '../../http/plumbing';
import { pageEnvelope } from '../../http/envelope';

export function registerAuditRoutes(fastify: FastifyInstance, app: App): void {
  fastify.get('/v1/audit_log', async (req, reply) => {
    const ctx = ctxOf(req);
    return sendJson(reply, 200, pageEnvelope(await app.audit.list(ctx, app.audit.parseList(ctx, req.query as Record<string, unknown>))));
  });
}
