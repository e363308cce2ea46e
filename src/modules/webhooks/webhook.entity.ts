import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';

export type EndpointStatus = 'enabled' | 'disabled' | 'deleted';
export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed' | 'cancelled';

/** A merchant's webhook endpoint in one environment. The secret is stored encrypted (it signs every delivery). */
@Entity('webhook_endpoints')
export class WebhookEndpoint {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'merchant_id', type: 'varchar', length: 40 }) merchantId: string;
  @Column({ type: 'varchar', length: 4 }) environment: Environment;
  @Column({ type: 'varchar', length: 2048 }) url: string;
  @Column({ name: 'enabled_events', type: 'text', transformer: jsonTransformer }) enabledEvents: string[];
  @Column({ name: 'secret_encrypted', type: 'text' }) secretEncrypted: string;
  /** The secret the last rotation replaced (sealed); deliveries carry its signature too until previousSecretExpiresAt. */
  @Column({ name: 'previous_secret_encrypted', type: 'text', nullable: true }) previousSecretEncrypted: string | null;
  @Column({ name: 'previous_secret_expires_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  previousSecretExpiresAt: Date | null;
  @Column({ type: 'varchar', length: 16 }) status: EndpointStatus;
  @Column({ name: 'disabled_reason', type: 'varchar', length: 256, nullable: true }) disabledReason: string | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer }) updatedAt: Date;
}

/**
 * One event to one endpoint: written in the event's transaction (the outbox fan-out), then
 * claimed attempt by attempt with a conditional UPDATE (status + attempt_count + lease).
 */
@Entity('webhook_deliveries')
export class WebhookDelivery {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'merchant_id', type: 'varchar', length: 40 }) merchantId: string;
  @Column({ type: 'varchar', length: 4 }) environment: Environment;
  @Column({ name: 'endpoint_id', type: 'varchar', length: 40 }) endpointId: string;
  @Column({ name: 'event_id', type: 'varchar', length: 40 }) eventId: string;
  @Column({ name: 'event_type', type: 'varchar', length: 64 }) eventType: string;
  @Column({ type: 'varchar', length: 16 }) status: DeliveryStatus;
  @Column({ name: 'attempt_count', type: 'int' }) attemptCount: number;
  /**
   * '' for the fan-out's delivery; the delivery's own id for one made by POST
   * /v1/events/:id/resend (one attempt, not retried, also to a disabled endpoint).
   * Unique with (endpoint, event).
   */
  @Column({ name: 'resend_key', type: 'varchar', length: 40, default: '' }) resendKey: string;
  @Column({ name: 'next_attempt_at', type: 'bigint', nullable: true, transformer: timeTransformer }) nextAttemptAt: Date | null;
  @Column({ name: 'lease_until', type: 'bigint', nullable: true, transformer: timeTransformer }) leaseUntil: Date | null;
  @Column({ name: 'last_status_code', type: 'int', nullable: true }) lastStatusCode: number | null;
  @Column({ name: 'last_error', type: 'varchar', length: 512, nullable: true }) lastError: string | null;
  @Column({ name: 'delivered_at', type: 'bigint', nullable: true, transformer: timeTransformer }) deliveredAt: Date | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer }) updatedAt: Date;
}

/** One HTTP attempt of a delivery, as recorded after it finished. */
@Entity('webhook_attempts')
export class WebhookAttempt {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'merchant_id', type: 'varchar', length: 40 }) merchantId: string;
  @Column({ type: 'varchar', length: 4 }) environment: Environment;
  @Column({ name: 'delivery_id', type: 'varchar', length: 40 }) deliveryId: string;
  @Column({ name: 'endpoint_id', type: 'varchar', length: 40 }) endpointId: string;
  @Column({ name: 'event_id', type: 'varchar', length: 40 }) eventId: string;
  @Column({ name: 'attempt_number', type: 'int' }) attemptNumber: number;
  @Column({ name: 'status_code', type: 'int', nullable: true }) statusCode: number | null;
  @Column({ type: 'varchar', length: 512, nullable: true }) error: string | null;
  @Column({ name: 'duration_ms', type: 'int' }) durationMs: number;
  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer }) createdAt: Date;
}

/**
 * One row per (merchant, environment) that every endpoint create and delete UPDATEs first,
 * in its own transaction: the count-then-insert of the endpoint cap then runs one at a time
 * per scope, across processes (InnoDB row lock) and across Galera nodes (two transactions
 * writing the same row conflict at certification; the loser is retried by Db.tx).
 */
@Entity('webhook_endpoint_locks')
export class WebhookEndpointLock {
  @PrimaryColumn({ name: 'merchant_id', type: 'varchar', length: 40 }) merchantId: string;
  @PrimaryColumn({ type: 'varchar', length: 4 }) environment: Environment;
  /** How many creates and deletes have taken the row; only ever incremented. */
  @Column({ type: 'bigint' }) version: string;
}
