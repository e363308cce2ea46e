import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions, TableIndex } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { id, int, isMysql, money, ref, str, text, time } from './schema-helpers';

/**
 * Payment links, and `payment_intents.payment_link_id`: the link a payment was made
 * through (null otherwise). `ix_payment_intents_link` answers "this link's open intents"
 * (counted under the link's row lock when a payer starts a payment) and a link's payments.
 */
export class PaymentLinks1738000000000 implements MigrationInterface {
  name = 'PaymentLinks1738000000000';

  async up(qr: QueryRunner): Promise<void> {
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const exact = (c: TableColumnOptions): TableColumnOptions => (collation ? { ...c, charset: 'utf8mb4', collation } : c);
    const nullableMoney = (name: string): TableColumnOptions => ({ ...money(qr, name), isNullable: true });
    await qr.createTable(
      new Table({
        name: 'payment_links',
        columns: [
          exact(id()),
          exact(ref('merchant_id')),
          str('environment', 4),
          exact(str('token', 64)),
          int('active'),
          nullableMoney('amount'),
          nullableMoney('min_amount'),
          nullableMoney('max_amount'),
          str('currency', 6),
          str('country', 2),
          str('description', 500, true),
          text('allowed_methods', true),
          int('reusable'),
          int('completion_limit', true),
          int('completed_count'),
          time('expires_at', true),
          str('return_url', 2048, true),
          text('metadata', true),
          time('created_at'),
          time('updated_at'),
        ],
        foreignKeys: [{ columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex('payment_links', new TableIndex({ name: 'uq_payment_links_token', columnNames: ['token'], isUnique: true }));
    await qr.createIndex('payment_links', new TableIndex({ name: 'ix_payment_links_list', columnNames: ['merchant_id', 'environment', 'created_at', 'id'] }));
    await qr.addColumn('payment_intents', new TableColumn(exact(ref('payment_link_id', true))));
    await qr.createIndex('payment_intents', new TableIndex({ name: 'ix_payment_intents_link', columnNames: ['payment_link_id', 'status'] }));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('payment_intents', 'ix_payment_intents_link');
    await qr.dropColumn('payment_intents', 'payment_link_id');
    await qr.dropTable('payment_links');
  }
}
