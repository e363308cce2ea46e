import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { id, int, money, ref, str, text, time } from './schema-helpers';

/** Payment intents (with their hosted checkout tokens) and merchants' payment-method settings. */
export class Payments1732492800000 implements MigrationInterface {
  name = 'Payments1732492800000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.createTable(
      new Table({
        name: 'payment_intents',
        columns: [
          id(),
          ref('merchant_id'),
          str('environment', 4),
          money(qr, 'amount'),
          str('currency', 6),
          str('country', 2),
          str('checkout_mode', 16),
          str('status', 32),
          str('merchant_reference', 256),
          str('request_fingerprint', 64),
          str('payment_method', 40, true),
          str('bank', 32, true),
          str('provider', 40, true),
          str('payment_reference', 64, true),
          text('payer_encrypted'),
          str('return_url', 2048, true),
          text('metadata', true),
          str('external_reference', 256, true),
          str('device_fingerprint', 512, true),
          text('next_action', true),
          str('processing_reason', 64, true),
          text('receipt', true),
          str('failure_code', 64, true),
          str('failure_message', 1024, true),
          str('planned_failure_code', 64, true),
          str('planned_failure_message', 1024, true),
          str('checkout_token', 64),
          time('expires_at'),
          time('settle_at', true),
          time('created_at'),
          time('updated_at'),
        ],
        foreignKeys: [{ columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex(
      'payment_intents',
      new TableIndex({
        name: 'uq_payment_intents_reference',
        columnNames: ['merchant_id', 'environment', 'merchant_reference'],
        isUnique: true,
      }),
    );
    await qr.createIndex('payment_intents', new TableIndex({ name: 'uq_payment_intents_checkout_token', columnNames: ['checkout_token'], isUnique: true }));
    await qr.createIndex(
      'payment_intents',
      new TableIndex({ name: 'ix_payment_intents_list', columnNames: ['merchant_id', 'environment', 'created_at', 'id'] }),
    );
    await qr.createIndex('payment_intents', new TableIndex({ name: 'ix_payment_intents_settle', columnNames: ['status', 'settle_at'] }));
    await qr.createIndex('payment_intents', new TableIndex({ name: 'ix_payment_intents_expiry', columnNames: ['status', 'expires_at'] }));

    await qr.createTable(
      new Table({
        name: 'payment_method_settings',
        columns: [id(), ref('merchant_id'), str('environment', 4), str('payment_method', 40), int('enabled'), time('updated_at')],
        foreignKeys: [{ columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex(
      'payment_method_settings',
      new TableIndex({ name: 'uq_payment_method_settings', columnNames: ['merchant_id', 'environment', 'payment_method'], isUnique: true }),
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const table of ['payment_method_settings', 'payment_intents']) await qr.dropTable(table);
  }
}
