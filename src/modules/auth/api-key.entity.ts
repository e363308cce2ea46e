import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timeTransformer } from '../../db/columns';
import type { Environment } from '../../domain/scope';

export type { Environment } from '../../domain/scope';
export { ENVIRONMENTS } from '../../domain/scope';

/**
 * An API key pair. The secret is never stored: only its SHA-256 digest. A restricted key
 * (`rk_` secret) carries its grants in `permissions`; a full key (`sk_`) has none there.
 */
@Entity('api_keys')
export class ApiKey {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ name: 'public_key', type: 'varchar', length: 80 })
  publicKey: string;

  @Column({ name: 'secret_hash', type: 'varchar', length: 64 })
  secretHash: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  revokedAt: Date | null;

  /** A restricted key's grants, as `payout_intents:read,balances:read` (resources not named: none); null for a full key. */
  @Column({ type: 'varchar', length: 1024, nullable: true })
  permissions: string | null;

  /** A name people know the key by, given when it was created (a roll's new key keeps it); null for keys made without one. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  name: string | null;

  /** A rolled key's end: it authenticates until then (the overlap), never after. */
  @Column({ name: 'expires_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  expiresAt: Date | null;

  /**
   * The person the key counts as where approvals count people: the member who made it, or the
   * person of the key that made or rolled it. Null: made by the operator (CLI); it counts as itself.
   */
  @Column({ name: 'created_by', type: 'varchar', length: 40, nullable: true })
  createdBy: string | null;

  /** When the key last authenticated a request, to the minute (written at most once a minute per key and process). */
  @Column({ name: 'last_used_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  lastUsedAt: Date | null;
}
