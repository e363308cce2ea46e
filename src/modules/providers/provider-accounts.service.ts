/**
 * The operator's provider accounts: connect, list, disable, and the active accounts routing
 * reads. Secrets are sealed with the data key on connect (FieldCipher, as webhook endpoint
 * secrets are) and opened only by `secretsOf`, for a call to the provider or a webhook check.
 */
import { isIP } from 'node:net';
import type { EntityManager } from 'typeorm';
import type { Db } from '../../db/db';
import type { FieldCipher } from '../../domain/crypto';
import { isId, newId } from '../../domain/ids';
import type { Environment } from '../auth/api-key.entity';
import { PROVIDER_NAMES, ProviderAccount, ProviderName, ProviderRecipient, ProviderSecrets } from './provider-account.entity';
import type { RecipientStore } from './live-connector';

/** How long routing keeps the list of active accounts before reading it again (another process may have connected one). */
export const ACCOUNTS_CACHE_MS = 1000;

export interface ConnectInput {
  provider: string;
  environment: string;
  secretKey?: string;
  publicKey?: string;
  webhookSecret?: string;
  apiBase?: string;
  vaultBase?: string;
  merchantId?: string | null;
}

export interface ProviderAccountWire {
  object: 'provider_account';
  id: string;
  provider: ProviderName;
  environment: Environment;
  status: 'active' | 'disabled';
  merchant: string | null;
  webhook_url: string;
  created_at: string;
}

/** A refusal of the operator's input (the CLI prints it and exits 2). */
export class ProviderAccountInputError extends Error {}

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.']);

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (LOOPBACK_NAMES.has(host.toLowerCase())) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}

/** An API base: https anywhere, plain http only on a loopback host (a local fake). Answers it without a trailing slash. */
export function checkApiBase(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProviderAccountInputError(`${flag} must be an absolute URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new ProviderAccountInputError(`${flag} must use https (plain http only for a loopback host such as 127.0.0.1)`);
  }
  if (url.username || url.password || url.search || url.hash) throw new ProviderAccountInputError(`${flag} must carry no credentials, query or fragment`);
  return url.toString().replace(/\/+$/, '');
}

export class ProviderAccounts {
  private cache: { at: number; rows: ProviderAccount[] } | null = null;

  constructor(
    private readonly db: Db,
    private readonly cipher: FieldCipher,
    private readonly baseUrl: () => string,
  ) {}

  async connect(input: ConnectInput): Promise<ProviderAccountWire> {
    if (!(PROVIDER_NAMES as readonly string[]).includes(input.provider))
      throw new ProviderAccountInputError(`--provider must be one of ${PROVIDER_NAMES.join(', ')}`);
    if (input.environment !== 'test' && input.environment !== 'live') throw new ProviderAccountInputError('--env must be test or live');
    const provider = input.provider as ProviderName;
    if (!input.secretKey) throw new ProviderAccountInputError('--secret-key is required');
    if (provider === 'stripe' && !input.webhookSecret) throw new ProviderAccountInputError('--webhook-secret is required for stripe');
    if (provider === 'opn' && !input.publicKey) throw new ProviderAccountInputError('--public-key is required for opn');
    if (provider === 'stripe' && input.vaultBase !== undefined) throw new ProviderAccountInputError('--vault-base is for opn accounts only');
    const secrets: ProviderSecrets = {
      secretKey: input.secretKey,
      ...(input.publicKey ? { publicKey: input.publicKey } : {}),
      ...(input.webhookSecret ? { webhookSecret: input.webhookSecret } : {}),
    };
    const now = new Date();
    const row = Object.assign(new ProviderAccount(), {
      id: newId('providerAccount', now.getTime()),
      provider,
      environment: input.environment,
      status: 'active' as const,
      merchantId: input.merchantId ?? null,
      apiBase: input.apiBase === undefined ? null : checkApiBase('--api-base', input.apiBase),
      vaultBase: input.vaultBase === undefined ? null : checkApiBase('--vault-base', input.vaultBase),
      secretsEncrypted: this.cipher.encrypt(JSON.stringify(secrets)),
      createdAt: now,
      updatedAt: now,
    });
    await this.db.tx((em) => em.insert(ProviderAccount, row));
    this.cache = null;
    return this.toWire(row);
  }

  async list(environment?: string): Promise<ProviderAccountWire[]> {
    if (environment !== undefined && environment !== 'test' && environment !== 'live') throw new ProviderAccountInputError('--env must be test or live');
    const rows = await this.db.read((em) =>
      em.find(ProviderAccount, { where: environment ? { environment: environment } : {}, order: { createdAt: 'ASC', id: 'ASC' } }),
    );
    return rows.map((r) => this.toWire(r));
  }

  /** Disables an account: routing stops at once; webhooks for its payments in flight are still verified and applied. */
  async disable(id: string): Promise<ProviderAccountWire | null> {
    if (!isId('providerAccount', id)) return null;
    const row = await this.db.tx(async (em) => {
      const found = await em.findOne(ProviderAccount, { where: { id } });
      if (!found) return null;
      if (found.status !== 'disabled') {
        found.status = 'disabled';
        found.updatedAt = new Date();
        await em.update(ProviderAccount, { id }, { status: 'disabled', updatedAt: found.updatedAt });
      }
      return found;
    });
    this.cache = null;
    return row && this.toWire(row);
  }

  /** One account by id, whatever its status (webhooks for a disabled account's payments still arrive); null if unknown. */
  async byId(id: string): Promise<ProviderAccount | null> {
    if (!isId('providerAccount', id)) return null;
    const cached = this.cache?.rows.find((r) => r.id === id);
    if (cached) return cached;
    return this.db.read((em) => em.findOne(ProviderAccount, { where: { id } }));
  }

  /**
   * The active accounts that serve `merchantId` in `environment` (shared ones, and ones
   * dedicated to that merchant), oldest first. Read at most once per ACCOUNTS_CACHE_MS.
   */
  async active(environment: Environment, merchantId: string, em?: EntityManager): Promise<ProviderAccount[]> {
    const now = Date.now();
    if (!this.cache || now - this.cache.at > ACCOUNTS_CACHE_MS) {
      // Inside a caller's unit of work (`em`), read there: SQLite runs one unit at a time.
      const find = (m: EntityManager) => m.find(ProviderAccount, { where: { status: 'active' }, order: { createdAt: 'ASC', id: 'ASC' } });
      const rows = em ? await find(em) : await this.db.read(find);
      this.cache = { at: now, rows };
    }
    return this.cache.rows.filter((r) => r.environment === environment && (r.merchantId === null || r.merchantId === merchantId));
  }

  secretsOf(account: ProviderAccount): ProviderSecrets {
    return JSON.parse(this.cipher.decrypt(account.secretsEncrypted)) as ProviderSecrets;
  }

  toWire(r: ProviderAccount): ProviderAccountWire {
    return {
      object: 'provider_account',
      id: r.id,
      provider: r.provider,
      environment: r.environment,
      status: r.status,
      merchant: r.merchantId,
      webhook_url: `${this.baseUrl()}/v1/provider_webhooks/${r.id}`,
      created_at: r.createdAt.toISOString(),
    };
  }

  /** The recipients a connector made at `accountId`'s provider, to reuse them. A concurrent duplicate keeps the first. */
  recipients(accountId: string): RecipientStore {
    return {
      get: async (key) =>
        (await this.db.read((em) => em.findOne(ProviderRecipient, { where: { providerAccountId: accountId, recipientKey: key } })))?.recipientId ?? null,
      put: async (key, recipientId) => {
        try {
          await this.db.tx((em) => em.insert(ProviderRecipient, { providerAccountId: accountId, recipientKey: key, recipientId, createdAt: new Date() }));
        } catch (err) {
          if (!this.db.isUniqueViolation(err)) throw err;
        }
      },
    };
  }
}
