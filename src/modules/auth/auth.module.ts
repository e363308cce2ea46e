/** Merchants, API keys (and their management: list, create, roll, revoke), the revocation watch of open sockets, and the `viewer` query. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { ApiKey } from './api-key.entity';
import { apiKeyOperations } from './api-key.operations';
import { ApiKeyResolver } from './api-key.resolver';
import { registerApiKeyRoutes } from './api-key.routes';
import { ApiKeySchema, ApiKeyWithSecretSchema, type ApiKeyWire } from './api-key.schemas';
import { ApiKeyType } from './api-key.types';
import { ApiKeyService } from './api-key.service';
import { AuthService } from './auth.service';
import { LastUse } from './last-use';
import { Merchant } from './merchant.entity';
import { KeyCache } from './key-cache';
import { REVOCATION_CHANNEL, RevocationWatcher } from './revocation-watcher';
import { MerchantType, ViewerResolver } from './viewer.resolver';
import { registerNode } from '../../graphql/node';

declare module '../../graphql/context' {
  interface Loaders {
    merchant: DataLoader<string, Merchant | null>;
    apiKey: DataLoader<string, ApiKeyWire | null>;
  }
}

// Only the caller's own merchant: the merchant loader itself is not scoped.
registerNode('mer', MerchantType, (loaders, id, ctx) => (id === ctx.merchantId ? loaders.merchant.load(id) : Promise.resolve(null)), 'authenticated');
registerNode('key', ApiKeyType, (loaders, id) => loaders.apiKey.load(id), 'api_keys');

export const authModule = defineModule({
  name: 'auth',
  provide({ db, config, log, redis }) {
    const lastUse = new LastUse(db, log.child({ component: 'auth' }));
    // Keys kept in memory for API_KEY_CACHE_MS; a revocation announced by any process drops its key here.
    const keys = new KeyCache(config.apiKeyCacheMs);
    redis?.subscribe(REVOCATION_CHANNEL, (apiKeyId) => keys.forget(apiKeyId));
    // Closes open graphql-ws sockets of revoked keys, on every process.
    const revocations = new RevocationWatcher(db, config.revocationPollMs, log.child({ component: 'auth' }), redis);
    const auth = new AuthService(db, log.child({ component: 'auth' }), lastUse, keys, revocations);
    const apiKeys = new ApiKeyService(db, auth, lastUse);
    return { auth, revocations, lastUse, apiKeys, keyOps: apiKeyOperations(apiKeys) };
  },
  close: async ({ revocations, lastUse }) => {
    revocations.close();
    await lastUse.close();
  },
  entities: [Merchant, ApiKey],
  resolvers: [ViewerResolver, ApiKeyResolver],
  routes: registerApiKeyRoutes,
  models: [ApiKeySchema, ApiKeyWithSecretSchema],
  loaders: ({ auth, apiKeys }, ctx) => ({
    merchant: new DataLoader<string, Merchant | null>(async (ids) => byKey(ids, await auth.merchantsByIds(ids))),
    apiKey: new DataLoader<string, ApiKeyWire | null>(async (ids) => byKey(ids, await apiKeys.getMany(ctx, ids))),
  }),
});
