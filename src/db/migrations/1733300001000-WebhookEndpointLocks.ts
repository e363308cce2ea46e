import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { alignSchema } from '../charset';
import { isMysql, ref, str } from './schema-helpers';

/**
 * The row per (merchant, environment) that serialises webhook endpoint creates and deletes
 * (the cap of 16 enabled endpoints is a count-then-insert). Rows are made on first use.
 * The table takes the database default, utf8mb4 since migration 1733300000000; its
 * merchant_id gets the binary NO PAD collation like every id (SQLite compares bytes).
 */
export class WebhookEndpointLocks1733300001000 implements MigrationInterface {
  name = 'WebhookEndpointLocks1733300001000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.createTable(
      new Table({
        name: 'webhook_endpoint_locks',
        columns: [
          { ...ref('merchant_id'), isPrimary: true },
          { ...str('environment', 4), isPrimary: true },
          { name: 'version', type: 'bigint', isNullable: false },
        ],
      }),
    );
    if (isMysql(qr)) await alignSchema(qr, ['webhook_endpoint_locks']);
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('webhook_endpoint_locks');
  }
}
