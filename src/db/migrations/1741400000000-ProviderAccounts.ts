import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions, TableIndex } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { id, isMysql, ref, str, text, time } from './schema-helpers';

/**
 * The operator's accounts at real providers (secrets sealed), and on payment intents the
 * provider's own reference of the payment (`provider_reference`, never returned), by which
 * its webhooks and the reconciliation job find the payment again.
 */
export class ProviderAccounts1741400000000 implements MigrationInterface {
  name = 'ProviderAccounts1741400000000';

  async up(qr: QueryRunner): Promise<void> {
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const exact = (c: TableColumnOptions): TableColumnOptions => (collation ? { ...c, charset: 'utf8mb4', collation } : c);
    await qr.createTable(
      new Table({
        name: 'provider_accounts',
        columns: [
          exact(id()),
          str('provider', 16),
          str('environment', 4),
          str('status', 16),
          exact(ref('merchant_id', true)),
          str('api_base', 512, true),
          str('vault_base', 512, true),
          text('secrets_encrypted'),
          time('created_at'),
          time('updated_at'),
        ],
      }),
    );
    await qr.createIndex('provider_accounts', new TableIndex({ name: 'ix_provider_accounts_env', columnNames: ['environment', 'status'] }));
    await qr.addColumn('payment_intents', new TableColumn(exact(str('provider_reference', 255, true))));
    await qr.createIndex('payment_intents', new TableIndex({ name: 'ix_payment_intents_provider_ref', columnNames: ['provider', 'provider_reference'] }));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('payment_intents', 'ix_payment_intents_provider_ref');
    await qr.dropColumn('payment_intents', 'provider_reference');
    await qr.dropTable('provider_accounts');
  }
}
