import type { FastifyInstance } from 'fastify';
import { UNAVAILABLE_RETRY_AFTER_S, type Db } from '../db/db';
import { sendJson } from './request';

/**
 * /healthz: the process is up. /readyz: the database answers within DB_PING_TIMEOUT_MS and
 * every migration is applied; else 503 with Retry-After, never a hang.
 */
export function registerHealthRoutes(fastify: FastifyInstance, db: Pick<Db, 'readiness'>): void {
  fastify.get('/healthz', async (_req, reply) => sendJson(reply, 200, { status: 'ok' }));
  fastify.get('/readyz', async (_req, reply) => {
    let state: Awaited<ReturnType<Db['readiness']>>;
    try {
      state = await db.readiness();
    } catch {
      reply.header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
      return sendJson(reply, 503, { status: 'unavailable', reason: 'database unreachable' });
    }
    if (state === 'migrations pending') return sendJson(reply, 503, { status: 'unavailable', reason: 'migrations pending' });
    return sendJson(reply, 200, { status: 'ready' });
  });
}
