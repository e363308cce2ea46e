/**
 * `cli providers connect|list|disable`: the operator's accounts at real providers
 * (docs/providers.md). Secrets are read from the flags and sealed at once; nothing printed
 * carries them.
 */
import type { App } from '../app';
import { ProviderAccountInputError, type ProviderAccountWire } from '../modules/providers/provider-accounts.service';

export async function providersCommand(
  app: Pick<App, 'providerAccounts' | 'auth'>,
  command: 'connect' | 'list' | 'disable',
  rest: string[],
  option: (name: string) => string | undefined,
  fail: (message: string) => never,
): Promise<ProviderAccountWire | ProviderAccountWire[]> {
  try {
    if (command === 'list') return await app.providerAccounts.list(option('env'));
    if (command === 'disable') {
      const id = rest.find((a) => !a.startsWith('--')) ?? fail('providers disable needs <pa_id>');
      return (await app.providerAccounts.disable(id)) ?? fail(`no such provider account: ${id}`);
    }
    const merchantArg = option('merchant');
    let merchantId: string | null = null;
    if (merchantArg !== undefined) {
      const merchant = await app.auth.findMerchant(merchantArg);
      if (!merchant) fail(`no such merchant: ${merchantArg}`);
      merchantId = merchant.id;
    }
    return await app.providerAccounts.connect({
      provider: option('provider') ?? fail('providers connect needs --provider stripe|opn'),
      environment: option('env') ?? fail('providers connect needs --env live|test'),
      secretKey: option('secret-key'),
      publicKey: option('public-key'),
      webhookSecret: option('webhook-secret'),
      apiBase: option('api-base'),
      vaultBase: option('vault-base'),
      merchantId,
    });
  } catch (err) {
    if (err instanceof ProviderAccountInputError) fail(err.message);
    throw err;
  }
}
