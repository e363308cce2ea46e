import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timeTransformer } from '../../db/columns';

export type IdempotencyState = 'in_flight' | 'done';

/**
 * One row per (API key, Idempotency-Key). `in_flight` is the lock; `done` holds the
 * final response (< 500) byte for byte, sealed with the data encryption key. The row is
 * unique on (api_key_id, idem_key).
 */
@Entity('idempotency_keys')
export class IdempotencyKey {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'api_key_id', type: 'varchar', length: 40 })
  apiKeyId: string;

  @Column({ name: 'idem_key', type: 'varchar', length: 255 })
  idemKey: string;

  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  @Column({ type: 'varchar', length: 16 })
  state: IdempotencyState;

  @Column({ name: 'response_status', type: 'int', nullable: true })
  responseStatus: number | null;

  /** `FieldCipher.encrypt` of the answer's bytes (MEDIUMTEXT on MySQL: sealing a 64 KiB answer takes about 88 KiB). */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  @Column({ name: 'request_id', type: 'varchar', length: 64 })
  requestId: string;

  @Column({ name: 'locked_at', type: 'bigint', transformer: timeTransformer })
  lockedAt: Date;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'bigint', transformer: timeTransformer })
  expiresAt: Date;
}
