import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { text, time } from './schema-helpers';

/**
 * Webhook endpoint management: the secret a rotation replaced, sealed like the
 * current one, and until when deliveries are still signed with it too; and the resend mark of
 * a delivery (a resend is one attempt, never retried).
 *
 * `resend_key` is '' on the fan-out's rows and the delivery's own id on a resend's: the
 * unique pair (endpoint, event) that keeps the fan-out from making a delivery twice becomes
 * (endpoint, event, resend_key), so it still holds for the fan-out and resends can repeat.
 */
export class WebhookEndpointManagement1733600000000 implements MigrationInterface {
  name = 'WebhookEndpointManagement1733600000000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('webhook_endpoints', new TableColumn(text('previous_secret_encrypted', true)));
    await qr.addColumn('webhook_endpoints', new TableColumn(time('previous_secret_expires_at', true)));
    await qr.addColumn('webhook_deliveries', new TableColumn({ name: 'resend_key', type: 'varchar', length: '40', isNullable: false, default: "''" }));
    await qr.dropIndex('webhook_deliveries', 'uq_webhook_deliveries_pair');
    await qr.createIndex(
      'webhook_deliveries',
      new TableIndex({ name: 'uq_webhook_deliveries_pair', columnNames: ['endpoint_id', 'event_id', 'resend_key'], isUnique: true }),
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.query("DELETE FROM webhook_deliveries WHERE resend_key <> ''");
    await qr.dropIndex('webhook_deliveries', 'uq_webhook_deliveries_pair');
    await qr.createIndex(
      'webhook_deliveries',
      new TableIndex({ name: 'uq_webhook_deliveries_pair', columnNames: ['endpoint_id', 'event_id'], isUnique: true }),
    );
    await qr.dropColumn('webhook_deliveries', 'resend_key');
    await qr.dropColumn('webhook_endpoints', 'previous_secret_expires_at');
    await qr.dropColumn('webhook_endpoints', 'previous_secret_encrypted');
  }
}
