/** Finance: balance transactions (the ledger's read model) and, built on them, reports. */
import DataLoader from 'dataloader';
import { balancesModule } from '../balances/balance.module';
import { byKey, defineModule } from '../module';
import {
  BalanceTransactionResolver,
  PaymentIntentBalanceTransactionsResolver,
  PayoutIntentBalanceTransactionsResolver,
  RefundBalanceTransactionsResolver,
} from './balance-transaction.resolver';
import { registerBalanceTransactionRoutes } from './balance-transaction.routes';
import { BalanceTransactionSchema, type BalanceTransactionWire } from './balance-transaction.schemas';
import { BalanceTransactionService } from './balance-transaction.service';

declare module '../../graphql/context' {
  interface Loaders {
    balanceTransaction: DataLoader<string, BalanceTransactionWire | null>;
  }
}

export const financeModule = defineModule({
  name: 'finance',
  uses: { balances: balancesModule },
  provide: ({ db }) => ({ balanceTransactions: new BalanceTransactionService(db) }),
  resolvers: [BalanceTransactionResolver, PaymentIntentBalanceTransactionsResolver, PayoutIntentBalanceTransactionsResolver, RefundBalanceTransactionsResolver],
  routes: (fastify, services) => registerBalanceTransactionRoutes(fastify, services),
  loaders: ({ balanceTransactions }, ctx) => ({
    balanceTransaction: new DataLoader<string, BalanceTransactionWire | null>(async (ids) =>
      byKey(ids, new Map((await balanceTransactions.getMany(ctx, ids)).map((t) => [t.id, t]))),
    ),
  }),
  models: [BalanceTransactionSchema],
});
