import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Keyset pages filtered by event `type` or audit `resource_id`: the filter's index
 * gets `id`, the keyset's tie-break, so that a page is a range of (merchant_id, environment,
 * <filter>, created_at, id) from the cursor down, read in order, limit + 1 entries at any
 * depth (src/db/list-query.ts `listRows`; events with several types read one range per type).
 * The old indexes, (merchant_id, environment, type | resource_id, created_at), are prefixes
 * of the new ones and are dropped. On MariaDB/MySQL, CREATE/DROP INDEX on InnoDB is online.
 */
export class KeysetFilterIndexes1734000000000 implements MigrationInterface {
  name = 'KeysetFilterIndexes1734000000000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.createIndex('events', new TableIndex({ name: 'ix_events_type_list', columnNames: ['merchant_id', 'environment', 'type', 'created_at', 'id'] }));
    await qr.dropIndex('events', 'ix_events_type');
    await qr.createIndex(
      'audit_log',
      new TableIndex({
        name: 'ix_audit_log_resource_list',
        columnNames: ['merchant_id', 'environment', 'resource_id', 'created_at', 'id'],
      }),
    );
    await qr.dropIndex('audit_log', 'ix_audit_log_resource');
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.createIndex(
      'audit_log',
      new TableIndex({ name: 'ix_audit_log_resource', columnNames: ['merchant_id', 'environment', 'resource_id', 'created_at'] }),
    );
    await qr.dropIndex('audit_log', 'ix_audit_log_resource_list');
    await qr.createIndex('events', new TableIndex({ name: 'ix_events_type', columnNames: ['merchant_id', 'environment', 'type', 'created_at'] }));
    await qr.dropIndex('events', 'ix_events_type_list');
  }
}
