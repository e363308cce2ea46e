/** The operator's accounts at real providers (Stripe, Opn Payments) and their connectors (docs/providers.md). */
import { defineModule } from '../module';
import { LiveConnectors } from './live-connectors';
import { ProviderAccount, ProviderRecipient } from './provider-account.entity';
import { ProviderAccounts } from './provider-accounts.service';

export const providersModule = defineModule({
  name: 'providers',
  provide({ db, cipher, config, publicUrl }) {
    const providerAccounts = new ProviderAccounts(db, cipher, () => publicUrl.get());
    const liveConnectors = new LiveConnectors(providerAccounts, config.providerTimeoutMs);
    return { providerAccounts, liveConnectors };
  },
  entities: [ProviderAccount, ProviderRecipient],
  sealed: [{ entity: ProviderAccount, property: 'secretsEncrypted' }],
});
