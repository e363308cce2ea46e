import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';
import type { WireActor } from '../../domain/permissions';

/** BIGINT counters fit a JS number (2^53) for any realistic stream length. */
export const seqTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | number | null) => (v === null || v === undefined ? null : Number(v)),
};

/**
 * The transactional outbox. An event row is written in the same transaction as the
 * state change it reports; webhooks and subscriptions read these rows and nothing else.
 */
@Entity('events')
export class EventRecord {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ type: 'varchar', length: 64 })
  type: string;

  @Column({ name: 'resource_id', type: 'varchar', length: 40 })
  resourceId: string;

  /** The record as the REST route returns it, at the moment of the event. */
  @Column({ type: 'text', transformer: jsonTransformer })
  data: Record<string, unknown>;

  @Column({ name: 'request_id', type: 'varchar', length: 64, nullable: true })
  requestId: string | null;

  /** Who caused it (the wire's `actor`): null for the scheduler, a provider's settlement, the payer's page, and rows older than the column. */
  @Column({ type: 'varchar', length: 512, nullable: true, transformer: jsonTransformer })
  actor: WireActor | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;

  /**
   * Position in the (merchant, environment) stream: 1, 2, 3, ... in commit order, without
   * gaps (assigned under the event_sequences row lock in the event's own transaction).
   */
  @Column({ type: 'bigint', nullable: true, transformer: seqTransformer })
  seq: number | null;
}

/** Per-(merchant, environment) event counter; see EventService.nextSeq. */
@Entity('event_sequences')
export class EventSequence {
  @PrimaryColumn({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @PrimaryColumn({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ name: 'last_seq', type: 'bigint', transformer: seqTransformer })
  lastSeq: number;
}
