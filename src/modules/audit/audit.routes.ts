/** REST route for the audit log: names its read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { listQuerySchema } from '../../domain/listing';
import { readRoute } from '../../http/dispatch';
import { pageEnvelope } from '../../http/envelope';
import { AUDIT_LIST, AUDIT_ROUTES as doc } from './audit.schemas';

export function registerAuditRoutes(fastify: FastifyInstance, app: App): void {
  const { audit } = app;
  readRoute(fastify, '/v1/audit_log', { ...doc.list, query: listQuerySchema(AUDIT_LIST) },
    async (ctx, query) => pageEnvelope(await audit.list(ctx, audit.parseList(ctx, query as Record<string, unknown>))));
}
