import type { FastifyInstance } from 'fastify';
import type { App } from '../app';
import { sendJson } from './plumbing';

/** /healthz: the process is up. /readyz: the database answers and every migration is applied. */
export function registerHealthRoutes(fastify: FastifyInstance, app: App): void {
  fastify.get('/healthz', async (_req, reply) => sendJson(reply, 200, { status: 'ok' }));
  fastify.get('/readyz', async (_req, reply) => {
    try {
      const pending = await app.db.read(() => app.db.ds.showMigrations());
      if (pending) return sendJson(reply, 503, { status: 'unavailable', reason: 'migrations pending' });
      return sendJson(reply, 200, { status: 'ready' });
    } catch {
      return sendJson(reply, 503, { status: 'unavailable', reason: 'database unreachable' });
    }
  });
}
