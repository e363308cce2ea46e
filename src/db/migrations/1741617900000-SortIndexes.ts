import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { isMysql } from './schema-helpers';

const TABLES = ['payment_intents', 'payout_intents', 'topup_intents', 'refunds'];

/**
 * The GraphQL sorts of the dashboard's main lists (`sortKey: AMOUNT | STATUS`, ties broken by
 * id, either direction): one keyset index per sort, so that a sorted page, forward or
 * backward, is a range of (merchant_id, environment, <key>, id) from its cursor, read in
 * order, limit + 1 entries at any depth (src/db/list-query.ts):
 * - `ix_<table>_status_sort` (merchant_id, environment, status, id);
 * - `ix_<table>_amount_sort`: on MySQL/MariaDB (merchant_id, environment, amount, id), amount
 *   being DECIMAL; on SQLite amount is digit text (no leading zeros), whose numeric order is
 *   (length, text): (merchant_id, environment, length(amount), amount, id), an expression
 *   index TypeORM's TableIndex cannot write, nor read back: a later migration that alters one
 *   of these tables wraps the change in `keepingExpressionIndexes` (./schema-helpers.ts).
 * On MariaDB/MySQL, CREATE/DROP INDEX on InnoDB is online.
 */
export class SortIndexes1741617900000 implements MigrationInterface {
  name = 'SortIndexes1741617900000';

  async up(qr: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await qr.createIndex(table, new TableIndex({ name: `ix_${table}_status_sort`, columnNames: ['merchant_id', 'environment', 'status', 'id'] }));
      if (isMysql(qr)) {
        await qr.createIndex(table, new TableIndex({ name: `ix_${table}_amount_sort`, columnNames: ['merchant_id', 'environment', 'amount', 'id'] }));
      } else {
        await qr.query(`CREATE INDEX "ix_${table}_amount_sort" ON "${table}" ("merchant_id", "environment", length("amount"), "amount", "id")`);
      }
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const table of [...TABLES].reverse()) {
      if (isMysql(qr)) await qr.dropIndex(table, `ix_${table}_amount_sort`);
      else await qr.query(`DROP INDEX "ix_${table}_amount_sort"`);
      await qr.dropIndex(table, `ix_${table}_status_sort`);
    }
  }
}
