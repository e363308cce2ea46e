/** Balances per currency and the ledger behind them. */
import { defineModule } from '../module';
import { Balance, LedgerEntry } from './balance.entity';
import { BalanceResolver } from './balance.resolver';
import { registerBalanceRoutes } from './balance.routes';
import { BalanceSchema } from './balance.schemas';
import { LedgerService } from './ledger.service';

export const balancesModule = defineModule({
  name: 'balances',
  provide: ({ db }) => ({ ledger: new LedgerService(db) }),
  entities: [Balance, LedgerEntry],
  resolvers: [BalanceResolver],
  routes: registerBalanceRoutes,
  models: [BalanceSchema],
});
