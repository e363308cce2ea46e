import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { ctxOf, sendJson } from '../../http/plumbing';

/** GET /v1/balances: `{ data: [balance, ...] }`, one per currency the merchant has used in this environment. */
export function registerBalanceRoutes(fastify: FastifyInstance, app: App): void {
  fastify.get('/v1/balances', async (req, reply) => sendJson(reply, 200, { data: await app.ledger.list(ctxOf(req)) }));
}
