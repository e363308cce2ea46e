import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { id, money, ref, str, text, time } from './schema-helpers';

/** Balances, the append-only ledger, and topup intents. */
export class Money1732320000000 implements MigrationInterface {
  name = 'Money1732320000000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.createTable(
      new Table({
        name: 'balances',
        columns: [
          id(),
          ref('merchant_id'),
          str('environment', 4),
          str('currency', 6),
          money(qr, 'available'),
          money(qr, 'pending'),
          money(qr, 'reserved'),
          time('updated_at'),
        ],
        foreignKeys: [{ columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex(
      'balances',
      new TableIndex({ name: 'uq_balances_scope_currency', columnNames: ['merchant_id', 'environment', 'currency'], isUnique: true }),
    );

    await qr.createTable(
      new Table({
        name: 'ledger_entries',
        columns: [
          id(),
          ref('merchant_id'),
          str('environment', 4),
          str('currency', 6),
          str('bucket', 16),
          money(qr, 'amount'),
          str('entry_type', 40),
          str('source_type', 32),
          ref('source_id'),
          time('created_at'),
        ],
      }),
    );
    await qr.createIndex(
      'ledger_entries',
      new TableIndex({ name: 'ix_ledger_entries_balance', columnNames: ['merchant_id', 'environment', 'currency', 'bucket'] }),
    );
    await qr.createIndex('ledger_entries', new TableIndex({ name: 'ix_ledger_entries_source', columnNames: ['source_id'] }));

    await qr.createTable(
      new Table({
        name: 'topup_intents',
        columns: [
          id(),
          ref('merchant_id'),
          str('environment', 4),
          money(qr, 'amount'),
          str('currency', 6),
          str('country', 2),
          str('status', 32),
          str('merchant_reference', 256),
          text('next_action', true),
          str('failure_code', 64, true),
          str('failure_message', 1024, true),
          time('expires_at'),
          time('created_at'),
          time('updated_at'),
        ],
        foreignKeys: [{ columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex(
      'topup_intents',
      new TableIndex({
        name: 'uq_topup_intents_reference',
        columnNames: ['merchant_id', 'environment', 'merchant_reference'],
        isUnique: true,
      }),
    );
    await qr.createIndex('topup_intents', new TableIndex({ name: 'ix_topup_intents_list', columnNames: ['merchant_id', 'environment', 'created_at', 'id'] }));
    await qr.createIndex('topup_intents', new TableIndex({ name: 'ix_topup_intents_expiry', columnNames: ['status', 'expires_at'] }));
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const table of ['topup_intents', 'ledger_entries', 'balances']) await qr.dropTable(table);
  }
}
