/** Balances per currency, the ledger behind them, the fees it books and its balance transactions. */
import DataLoader from 'dataloader';
import { defineModule } from '../module';
import { registerNode } from '../../graphql/node';
import { Balance, LedgerEntry } from './balance.entity';
import { BalanceTransaction, FeeRateRow, FeeSchedule } from './finance.entity';
import { FeeService } from './fee.service';
import { BalanceResolver } from './balance.resolver';
import { FeeScheduleResolver } from './fee.resolver';
import { registerBalanceRoutes } from './balance.routes';
import { BalanceSchema } from './balance.schemas';
import { balanceCurrencyOf, BalanceType, withBalanceId, type BalanceNode } from './balance.types';
import { LedgerService } from './ledger.service';

declare module '../../graphql/context' {
  interface Loaders {
    /** By derived id (`bal_test_THB`): the caller's balance in that currency. */
    balance: DataLoader<string, BalanceNode | null>;
  }
}

registerNode('bal', BalanceType, (loaders, id) => loaders.balance.load(id), 'balances:read');

export const balancesModule = defineModule({
  name: 'balances',
  provide: ({ db }) => {
    const fees = new FeeService(db);
    return { ledger: new LedgerService(db, fees), fees };
  },
  entities: [Balance, LedgerEntry, BalanceTransaction, FeeSchedule, FeeRateRow],
  resolvers: [BalanceResolver, FeeScheduleResolver],
  routes: registerBalanceRoutes,
  loaders: ({ ledger }, ctx) => ({
    balance: new DataLoader<string, BalanceNode | null>(async (ids) => {
      const all = ids.some((id) => balanceCurrencyOf(ctx, id)) ? await ledger.list(ctx) : [];
      return ids.map((id) => {
        const currency = balanceCurrencyOf(ctx, id);
        const found = currency === undefined ? undefined : all.find((b) => b.currency === currency);
        return found ? withBalanceId(found) : null;
      });
    }),
  }),
  models: [BalanceSchema],
});
