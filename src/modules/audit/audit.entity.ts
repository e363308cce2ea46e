import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonTransformer, timeTransformer } from '../../db/columns';
import type { WireActor } from '../../domain/permissions';
import type { Environment } from '../auth/api-key.entity';

/** One committed state-changing API call: who, what, on which record, why, under which request. */
@Entity('audit_log')
export class AuditEntry {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'merchant_id', type: 'varchar', length: 40 }) merchantId: string;
  @Column({ type: 'varchar', length: 4 }) environment: Environment;
  @Column({ name: 'api_key_id', type: 'varchar', length: 40 }) apiKeyId: string;
  /** The key or member that made the call (the wire's `actor`); null only on rows older than the column. */
  @Column({ type: 'varchar', length: 512, nullable: true, transformer: jsonTransformer }) actor: WireActor | null;
  /** The id in `actor` (key_... or usr_...), for the listing's actor filter; null as `actor` is. */
  @Column({ name: 'actor_id', type: 'varchar', length: 40, nullable: true }) actorId: string | null;
  /** The operation, named as its REST route (`POST /v1/payout_intents/:id/cancel`); GraphQL mutations share the names. */
  @Column({ name: 'action', type: 'varchar', length: 128 }) operation: string;
  @Column({ name: 'resource_type', type: 'varchar', length: 64, nullable: true }) resourceType: string | null;
  @Column({ name: 'resource_id', type: 'varchar', length: 40, nullable: true }) resourceId: string | null;
  @Column({ type: 'varchar', length: 1024, nullable: true }) reason: string | null;
  @Column({ name: 'request_id', type: 'varchar', length: 64, nullable: true }) requestId: string | null;
  @Column({ name: 'status_code', type: 'int', nullable: true }) statusCode: number | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer }) createdAt: Date;
}
