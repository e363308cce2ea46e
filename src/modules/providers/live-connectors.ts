/**
 * The connectors of the provider accounts: one per account (and per version of it), built
 * on first use with the account's opened secrets and kept for the process.
 */
import type { EntityManager } from 'typeorm';
import type { LiveConnector } from './live-connector';
import type { ProviderAccount } from './provider-account.entity';
import type { ProviderAccounts } from './provider-accounts.service';
import { OpnConnector } from './opn.connector';

export type ConnectorFactory = (account: ProviderAccount, accounts: ProviderAccounts, timeoutMs: number) => LiveConnector;

/** Each provider's connector, by the provider name an account carries. Adding a provider: one entry here (docs/providers.md). */
export const CONNECTOR_FACTORIES: Record<string, ConnectorFactory> = {
  stripe: (account, accounts, timeoutMs) => {
    // Stripe's SDK is about 220 modules, a sixth of what a start loads: it loads with the first
    // Stripe account a process uses (docs/performance.md, "Stripe's SDK on first use").
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { StripeConnector } = require('./stripe.connector') as typeof import('./stripe.connector');
    return new StripeConnector(account, accounts.secretsOf(account), timeoutMs);
  },
  opn: (account, accounts, timeoutMs) => new OpnConnector(account, accounts.secretsOf(account), timeoutMs),
};

export class LiveConnectors {
  private readonly built = new Map<string, { version: number; connector: LiveConnector }>();

  constructor(
    private readonly accounts: ProviderAccounts,
    private readonly timeoutMs: number,
  ) {}

  /** The account's connector, or null for a provider this build has no connector for. */
  of(account: ProviderAccount): LiveConnector | null {
    const version = account.updatedAt.getTime();
    const kept = this.built.get(account.id);
    if (kept && kept.version === version) return kept.connector;
    const factory = CONNECTOR_FACTORIES[account.provider];
    if (!factory) return null;
    const connector = factory(account, this.accounts, this.timeoutMs);
    this.built.set(account.id, { version, connector });
    return connector;
  }

  /** The active accounts' connectors serving `merchantId` in `environment`, oldest account first. */
  async active(environment: ProviderAccount['environment'], merchantId: string, em?: EntityManager): Promise<LiveConnector[]> {
    const connectors = (await this.accounts.active(environment, merchantId, em)).map((a) => this.of(a)).filter((c): c is LiveConnector => c !== null);
    // What an account offers may come from the provider (Opn's capability): read again when due, in the
    // background (routing may run inside a database transaction, which must not wait on a provider); the
    // new offers count from the next request (routing's cache key carries definitionVersion).
    for (const c of connectors) if (c.refresh) void c.refresh();
    return connectors;
  }

  /** The connector of one account by id, whatever its status (in-flight payments of a disabled account still settle). */
  async byId(id: string): Promise<LiveConnector | null> {
    const account = await this.accounts.byId(id);
    return account ? this.of(account) : null;
  }
}
