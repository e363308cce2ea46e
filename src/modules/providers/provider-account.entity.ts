import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';

export const PROVIDER_NAMES = ['stripe', 'opn'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
export type ProviderAccountStatus = 'active' | 'disabled';

/**
 * One of the operator's own accounts at a real provider, in one environment, optionally
 * dedicated to one merchant. Its keys are sealed by the data key (one JSON value, like a
 * webhook endpoint's secret) and opened only where a call to the provider is made or a
 * webhook from it is verified; nothing returns or logs them.
 */
@Entity('provider_accounts')
export class ProviderAccount {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ type: 'varchar', length: 16 }) provider: ProviderName;
  @Column({ type: 'varchar', length: 4 }) environment: Environment;
  @Column({ type: 'varchar', length: 16 }) status: ProviderAccountStatus;
  /** A merchant the account serves alone (mer_...), or null for every merchant of the environment. */
  @Column({ name: 'merchant_id', type: 'varchar', length: 40, nullable: true }) merchantId: string | null;
  /** The provider API's base (https, or http on a loopback host for a local fake); null = the provider's own. */
  @Column({ name: 'api_base', type: 'varchar', length: 512, nullable: true }) apiBase: string | null;
  /** Opn's vault (tokens, sources) base; null = Opn's own. */
  @Column({ name: 'vault_base', type: 'varchar', length: 512, nullable: true }) vaultBase: string | null;
  /** FieldCipher-sealed JSON of ProviderSecrets. */
  @Column({ name: 'secrets_encrypted', type: 'text' }) secretsEncrypted: string;
  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer }) updatedAt: Date;
}

/** A provider's recipient for one bank account, reused by later payouts through the same account. */
@Entity('provider_recipients')
export class ProviderRecipient {
  @PrimaryColumn({ name: 'provider_account_id', type: 'varchar', length: 40 }) providerAccountId: string;
  /** HMAC-SHA256 (hex) of bank code, account number and holder name under the account's secret key. */
  @PrimaryColumn({ name: 'recipient_key', type: 'varchar', length: 64 }) recipientKey: string;
  @Column({ name: 'recipient_id', type: 'varchar', length: 255 }) recipientId: string;
  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer }) createdAt: Date;
}

/** What is sealed in `secrets_encrypted`. */
export interface ProviderSecrets {
  secretKey: string;
  publicKey?: string;
  webhookSecret?: string;
}
