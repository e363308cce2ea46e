/** Merchants, API keys and the `viewer` query. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { ApiKey } from './api-key.entity';
import { Merchant } from './merchant.entity';
import { ViewerResolver } from './viewer.resolver';

export const authModule = defineModule({
  name: 'auth',
  entities: [Merchant, ApiKey],
  resolvers: [ViewerResolver],
  loaders: (app) => ({
    merchant: new DataLoader<string, Merchant | null>(async (ids) => byKey(ids, await app.auth.merchantsByIds(ids))),
  }),
});
