import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions, TableIndex } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { id, int, isMysql, money, ref, str, text, time } from './schema-helpers';

/**
 * Payout batches: `payout_batches` (the batch, its totals per currency and, for an invalid
 * one, every row's errors), `payout_batch_items` (the rows of a batch waiting for approval,
 * each merchant_reference unique in its scope like a payout's), and
 * `payout_intents.payout_batch` (the batch an approved item's payout belongs to).
 */
export class PayoutBatches1739100000000 implements MigrationInterface {
  name = 'PayoutBatches1739100000000';

  async up(qr: QueryRunner): Promise<void> {
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const exact = (c: TableColumnOptions): TableColumnOptions => (collation ? { ...c, charset: 'utf8mb4', collation } : c);
    // Up to 5,000 rows' errors: more than MySQL's TEXT (64 KiB) holds.
    const long = (name: string): TableColumnOptions => (isMysql(qr) ? { name, type: 'longtext' } : text(name));
    await qr.createTable(
      new Table({
        name: 'payout_batches',
        columns: [
          exact(id()),
          exact(ref('merchant_id')),
          str('environment', 4),
          str('status', 32),
          int('item_count'),
          text('totals'),
          long('errors'),
          int('succeeded_count'),
          int('failed_count'),
          str('cancel_reason', 512, true),
          time('created_at'),
          time('updated_at'),
        ],
        foreignKeys: [{ columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex('payout_batches', new TableIndex({ name: 'ix_payout_batches_list', columnNames: ['merchant_id', 'environment', 'created_at', 'id'] }));
    await qr.createIndex(
      'payout_batches',
      new TableIndex({ name: 'ix_payout_batches_status_list', columnNames: ['merchant_id', 'environment', 'status', 'created_at', 'id'] }),
    );
    await qr.createTable(
      new Table({
        name: 'payout_batch_items',
        columns: [
          exact(id()),
          exact(ref('batch_id')),
          exact(ref('merchant_id')),
          str('environment', 4),
          int('row_number'),
          money(qr, 'amount'),
          str('currency', 6),
          str('country', 2),
          exact(str('merchant_reference', 256)),
          str('bank_code', 64),
          str('holder_name', 256),
          str('account_last4', 4),
          text('account_encrypted'),
        ],
        foreignKeys: [{ columnNames: ['batch_id'], referencedTableName: 'payout_batches', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex(
      'payout_batch_items',
      new TableIndex({ name: 'uq_payout_batch_items_reference', columnNames: ['merchant_id', 'environment', 'merchant_reference'], isUnique: true }),
    );
    await qr.createIndex('payout_batch_items', new TableIndex({ name: 'ix_payout_batch_items_batch', columnNames: ['batch_id', 'row_number'] }));
    await qr.addColumn('payout_intents', new TableColumn(exact(ref('payout_batch', true))));
    await qr.createIndex('payout_intents', new TableIndex({ name: 'ix_payout_intents_batch', columnNames: ['payout_batch', 'created_at', 'id'] }));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('payout_intents', 'ix_payout_intents_batch');
    await qr.dropColumn('payout_intents', 'payout_batch');
    await qr.dropTable('payout_batch_items');
    await qr.dropTable('payout_batches');
  }
}
