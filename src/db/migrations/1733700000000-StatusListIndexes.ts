import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const TABLES = ['payout_intents', 'topup_intents', 'payment_intents', 'refunds'];

/**
 * Lists filtered by status read a range of (merchant_id, environment, status, created_at, id)
 * per status (src/db/list-query.ts `listRows`): a page costs limit + 1 index entries per
 * requested status whatever the depth and however rare the status, where the list index
 * (merchant_id, environment, created_at, id) had to step over every row of the other states.
 * On MariaDB/MySQL, CREATE INDEX on InnoDB is an online operation (reads and writes go on).
 */
export class StatusListIndexes1733700000000 implements MigrationInterface {
  name = 'StatusListIndexes1733700000000';

  async up(qr: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await qr.createIndex(
        table,
        new TableIndex({ name: `ix_${table}_status_list`, columnNames: ['merchant_id', 'environment', 'status', 'created_at', 'id'] }),
      );
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const table of TABLES) await qr.dropIndex(table, `ix_${table}_status_list`);
  }
}
