import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { id, int, ref, str, text, time } from './schema-helpers';

/**
 * Event ordering (a per-scope sequence number), webhook endpoints, deliveries and
 * attempts, and the audit log.
 */
export class Events1732406400000 implements MigrationInterface {
  name = 'Events1732406400000';

  async up(qr: QueryRunner): Promise<void> {
    // seq: position of the event in its (merchant, environment) stream, assigned under the
    // row lock of event_sequences inside the transition's transaction, so commit order = seq order.
    await qr.addColumn('events', new TableColumn({ name: 'seq', type: 'bigint', isNullable: true }));
    await qr.createIndex('events', new TableIndex({ name: 'uq_events_seq', columnNames: ['merchant_id', 'environment', 'seq'], isUnique: true }));
    await qr.createIndex('events', new TableIndex({ name: 'ix_events_type', columnNames: ['merchant_id', 'environment', 'type', 'created_at'] }));

    await qr.createTable(
      new Table({
        name: 'event_sequences',
        columns: [
          { ...ref('merchant_id'), isPrimary: true },
          { ...str('environment', 4), isPrimary: true },
          { name: 'last_seq', type: 'bigint', isNullable: false },
        ],
      }),
    );

    await qr.createTable(
      new Table({
        name: 'webhook_endpoints',
        columns: [
          id(),
          ref('merchant_id'),
          str('environment', 4),
          str('url', 2048),
          text('enabled_events'),
          text('secret_encrypted'),
          str('status', 16),
          str('disabled_reason', 256, true),
          time('created_at'),
          time('updated_at'),
        ],
      }),
    );
    await qr.createIndex(
      'webhook_endpoints',
      new TableIndex({ name: 'ix_webhook_endpoints_list', columnNames: ['merchant_id', 'environment', 'created_at', 'id'] }),
    );

    await qr.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          id(),
          ref('merchant_id'),
          str('environment', 4),
          ref('endpoint_id'),
          ref('event_id'),
          str('event_type', 64),
          str('status', 16),
          int('attempt_count'),
          time('next_attempt_at', true),
          time('lease_until', true),
          int('last_status_code', true),
          str('last_error', 512, true),
          time('delivered_at', true),
          time('created_at'),
          time('updated_at'),
        ],
      }),
    );
    await qr.createIndex(
      'webhook_deliveries',
      new TableIndex({ name: 'uq_webhook_deliveries_pair', columnNames: ['endpoint_id', 'event_id'], isUnique: true }),
    );
    await qr.createIndex('webhook_deliveries', new TableIndex({ name: 'ix_webhook_deliveries_due', columnNames: ['status', 'next_attempt_at'] }));
    await qr.createIndex('webhook_deliveries', new TableIndex({ name: 'ix_webhook_deliveries_event', columnNames: ['event_id'] }));

    await qr.createTable(
      new Table({
        name: 'webhook_attempts',
        columns: [
          id(),
          ref('merchant_id'),
          str('environment', 4),
          ref('delivery_id'),
          ref('endpoint_id'),
          ref('event_id'),
          int('attempt_number'),
          int('status_code', true),
          str('error', 512, true),
          int('duration_ms'),
          time('created_at'),
        ],
      }),
    );
    await qr.createIndex(
      'webhook_attempts',
      new TableIndex({
        name: 'ix_webhook_attempts_endpoint',
        columnNames: ['merchant_id', 'environment', 'endpoint_id', 'created_at', 'id'],
      }),
    );
    await qr.createIndex('webhook_attempts', new TableIndex({ name: 'ix_webhook_attempts_event', columnNames: ['event_id'] }));

    await qr.createTable(
      new Table({
        name: 'audit_log',
        columns: [
          id(),
          ref('merchant_id'),
          str('environment', 4),
          ref('api_key_id'),
          str('action', 128),
          str('resource_type', 64, true),
          ref('resource_id', true),
          str('reason', 1024, true),
          str('request_id', 64, true),
          time('created_at'),
        ],
      }),
    );
    await qr.createIndex('audit_log', new TableIndex({ name: 'ix_audit_log_list', columnNames: ['merchant_id', 'environment', 'created_at', 'id'] }));
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const table of ['audit_log', 'webhook_attempts', 'webhook_deliveries', 'webhook_endpoints', 'event_sequences']) await qr.dropTable(table);
    await qr.dropIndex('events', 'ix_events_type');
    await qr.dropIndex('events', 'uq_events_seq');
    await qr.dropColumn('events', 'seq');
  }
}
