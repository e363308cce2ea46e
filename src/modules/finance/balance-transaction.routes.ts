/** REST routes of balance transactions: name their reads and documents, nothing more. */
import type { FastifyInstance } from 'fastify';
import { listRoute, readRoute } from '../../http/dispatch';
import type { BalanceTransactionService } from './balance-transaction.service';
import { BALANCE_TRANSACTION_LIST, BALANCE_TRANSACTION_ROUTES as doc } from './balance-transaction.schemas';

/** Permission resource of these routes (src/domain/permissions.ts): balance_transactions:read. */
export const BALANCE_TRANSACTIONS_RESOURCE = 'balance_transactions';

export function registerBalanceTransactionRoutes(fastify: FastifyInstance, { balanceTransactions }: { balanceTransactions: BalanceTransactionService }): void {
  listRoute(fastify, '/v1/balance_transactions', doc.list, BALANCE_TRANSACTION_LIST, async (ctx, query) =>
    balanceTransactions.list(ctx, balanceTransactions.parseList(ctx, query)),
  );
  readRoute(fastify, '/v1/balance_transactions/:id', doc.get, async (ctx, _query, params) => balanceTransactions.get(ctx, params.id));
}
