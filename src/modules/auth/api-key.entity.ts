import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timeTransformer } from '../../db/columns';
import type { Environment } from '../../domain/scope';

export type { Environment } from '../../domain/scope';
export { ENVIRONMENTS } from '../../domain/scope';

/** An API key pair. The secret is never stored: only its SHA-256 digest. */
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
}
