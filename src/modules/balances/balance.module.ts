/** Balances per currency and the ledger behind them. */
import { defineModule } from '../module';
import { Balance, LedgerEntry } from './balance.entity';
import { BALANCE_OPENAPI } from './balance.openapi';
import { BalanceResolver } from './balance.resolver';
import { registerBalanceRoutes } from './balance.routes';

export const balancesModule = defineModule({
  name: 'balances',
  entities: [Balance, LedgerEntry],
  resolvers: [BalanceResolver],
  routes: registerBalanceRoutes,
  openapi: BALANCE_OPENAPI,
});
