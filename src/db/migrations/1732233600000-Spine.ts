import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { id, int, money, ref, str, text, time } from './schema-helpers';

/** Merchants, API keys, idempotency keys, payout intents and the event outbox. */
export class Spine1732233600000 implements MigrationInterface {
  name = 'Spine1732233600000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.createTable(new Table({ name: 'merchants', columns: [id(), str('name', 200), time('created_at')] }));
    await qr.createIndex('merchants', new TableIndex({ name: 'uq_merchants_name', columnNames: ['name'], isUnique: true }));

    await qr.createTable(
      new Table({
        name: 'api_keys',
        columns: [id(), ref('merchant_id'), str('environment', 4), str('public_key', 80), str('secret_hash', 64), time('created_at'), time('revoked_at', true)],
        foreignKeys: [{ columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex('api_keys', new TableIndex({ name: 'uq_api_keys_public_key', columnNames: ['public_key'], isUnique: true }));

    await qr.createTable(
      new Table({
        name: 'idempotency_keys',
        columns: [
          id(),
          ref('api_key_id'),
          str('idem_key', 255),
          str('fingerprint', 64),
          str('state', 16),
          int('response_status', true),
          text('response_body', true),
          str('request_id', 64),
          time('locked_at'),
          time('created_at'),
          time('expires_at'),
        ],
      }),
    );
    await qr.createIndex('idempotency_keys', new TableIndex({ name: 'uq_idempotency_keys_key', columnNames: ['api_key_id', 'idem_key'], isUnique: true }));
    await qr.createIndex('idempotency_keys', new TableIndex({ name: 'ix_idempotency_keys_expires', columnNames: ['expires_at'] }));

    await qr.createTable(
      new Table({
        name: 'payout_intents',
        columns: [
          id(),
          ref('merchant_id'),
          str('environment', 4),
          money(qr, 'amount'),
          str('currency', 6),
          str('country', 2),
          str('status', 32),
          str('merchant_reference', 256),
          str('recipient_type', 32),
          str('recipient_bank_code', 64),
          str('recipient_holder_name', 256),
          str('recipient_account_last4', 4),
          text('recipient_account_encrypted'),
          str('failure_code', 64, true),
          str('failure_message', 1024, true),
          time('settle_at', true),
          time('created_at'),
          time('updated_at'),
        ],
        foreignKeys: [{ columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex(
      'payout_intents',
      new TableIndex({
        name: 'uq_payout_intents_reference',
        columnNames: ['merchant_id', 'environment', 'merchant_reference'],
        isUnique: true,
      }),
    );
    await qr.createIndex('payout_intents', new TableIndex({ name: 'ix_payout_intents_list', columnNames: ['merchant_id', 'environment', 'created_at', 'id'] }));
    await qr.createIndex('payout_intents', new TableIndex({ name: 'ix_payout_intents_settle', columnNames: ['status', 'settle_at'] }));

    await qr.createTable(
      new Table({
        name: 'events',
        columns: [
          id(),
          ref('merchant_id'),
          str('environment', 4),
          str('type', 64),
          ref('resource_id'),
          text('data'),
          str('request_id', 64, true),
          time('created_at'),
        ],
      }),
    );
    await qr.createIndex('events', new TableIndex({ name: 'ix_events_list', columnNames: ['merchant_id', 'environment', 'created_at', 'id'] }));
    await qr.createIndex('events', new TableIndex({ name: 'ix_events_resource', columnNames: ['resource_id'] }));
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const table of ['events', 'payout_intents', 'idempotency_keys', 'api_keys', 'merchants']) {
      await qr.dropTable(table);
    }
  }
}
