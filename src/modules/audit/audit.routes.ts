/** REST route for the audit log: names its read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { AuditService } from './audit.service';
import { listRoute } from '../../http/dispatch';
import { AUDIT_LIST, AUDIT_ROUTES as doc } from './audit.schemas';

export function registerAuditRoutes(fastify: FastifyInstance, { audit }: { audit: AuditService }): void {
  listRoute(fastify, '/v1/audit_log', doc.list, AUDIT_LIST, async (ctx, query) => audit.list(ctx, audit.parseList(ctx, query)));
}
