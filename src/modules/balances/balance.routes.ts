import type { FastifyInstance } from 'fastify';
import type { LedgerService } from './ledger.service';
import { readRoute } from '../../http/dispatch';
import { BALANCE_ROUTES as doc } from './balance.schemas';

/** GET /v1/balances: `{ data: [balance, ...] }`, one per currency the merchant has used in this environment. */
export function registerBalanceRoutes(fastify: FastifyInstance, { ledger }: { ledger: LedgerService }): void {
  readRoute(fastify, '/v1/balances', doc.list, async (ctx) => ({ data: await ledger.list(ctx) }));
}
