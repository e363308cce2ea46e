import type { FastifyInstance } from 'fastify';
import type { App } from '../../app';
import { readRoute } from '../../http/dispatch';
import { BALANCE_ROUTES as doc } from './balance.schemas';

/** GET /v1/balances: `{ data: [balance, ...] }`, one per currency the merchant has used in this environment. */
export function registerBalanceRoutes(fastify: FastifyInstance, app: App): void {
  readRoute(fastify, '/v1/balances', doc.list, async (ctx) => ({ data: await app.ledger.list(ctx) }));
}
