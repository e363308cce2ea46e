import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions, TableIndex } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { id, isMysql, money, moneyZero, ref, str, time } from './schema-helpers';

/**
 * Refunds, and `payment_intents.amount_refunded`: the sum of a payment's refunds that have
 * not failed. Creating a refund raises it in the same transaction as the refund's insert,
 * with a compare-and-set on the locked payment row, so two refunds of one payment always
 * conflict on that row (across processes and on a Galera cluster) and the sum can never
 * pass the payment's amount.
 */
export class Refunds1733500000000 implements MigrationInterface {
  name = 'Refunds1733500000000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('payment_intents', new TableColumn(moneyZero(qr, 'amount_refunded')));
    // MySQL/MariaDB: ids and merchant_reference match byte for byte (binary NO PAD), as on the
    // other tables since Utf8mb4ExactIds; a foreign key's columns must match the collation
    // of the ids they reference.
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const exact = (c: TableColumnOptions): TableColumnOptions => (collation ? { ...c, charset: 'utf8mb4', collation } : c);
    await qr.createTable(
      new Table({
        name: 'refunds',
        columns: [
          exact(id()),
          exact(ref('merchant_id')),
          str('environment', 4),
          exact(ref('payment_intent_id')),
          money(qr, 'amount'),
          str('currency', 6),
          str('country', 2),
          str('status', 32),
          str('reason', 512, true),
          exact(str('merchant_reference', 256, true)),
          str('failure_code', 64, true),
          str('failure_message', 1024, true),
          str('provider', 40),
          time('settle_at', true),
          time('created_at'),
          time('updated_at'),
        ],
        foreignKeys: [
          { columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] },
          { columnNames: ['payment_intent_id'], referencedTableName: 'payment_intents', referencedColumnNames: ['id'] },
        ],
      }),
    );
    // Several NULL merchant_references are allowed by both engines' unique indexes.
    await qr.createIndex(
      'refunds',
      new TableIndex({ name: 'uq_refunds_reference', columnNames: ['merchant_id', 'environment', 'merchant_reference'], isUnique: true }),
    );
    await qr.createIndex('refunds', new TableIndex({ name: 'ix_refunds_list', columnNames: ['merchant_id', 'environment', 'created_at', 'id'] }));
    await qr.createIndex('refunds', new TableIndex({ name: 'ix_refunds_payment', columnNames: ['payment_intent_id', 'created_at', 'id'] }));
    await qr.createIndex('refunds', new TableIndex({ name: 'ix_refunds_settle', columnNames: ['status', 'settle_at'] }));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('refunds');
    await qr.dropColumn('payment_intents', 'amount_refunded');
  }
}
