import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { isMysql, str, text, time } from './schema-helpers';

/**
 * What real provider accounts keep on the records they serve (never returned):
 * - payment intents: the provider's page a payer is sent on to (a bank's page behind Opn's
 *   `authorize_uri`; the payer's `next_action.url` is our `/checkout/<token>/authorize`);
 * - refunds: the provider's id of the refund;
 * - payout intents: the account paying it out and the provider's id of the transfer;
 * - provider_recipients: the provider's recipient for a bank account, reused by later payouts
 *   (keyed by an HMAC of the bank account under the account's key: no account number in clear).
 */
export class ProviderReferences1741500000000 implements MigrationInterface {
  name = 'ProviderReferences1741500000000';

  async up(qr: QueryRunner): Promise<void> {
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const exact = (c: TableColumnOptions): TableColumnOptions => (collation ? { ...c, charset: 'utf8mb4', collation } : c);
    await qr.addColumn('payment_intents', new TableColumn(text('provider_redirect_url', true)));
    await qr.addColumn('refunds', new TableColumn(exact(str('provider_reference', 255, true))));
    await qr.addColumn('payout_intents', new TableColumn(exact(str('provider', 40, true))));
    await qr.addColumn('payout_intents', new TableColumn(exact(str('provider_reference', 255, true))));
    await qr.createTable(
      new Table({
        name: 'provider_recipients',
        columns: [
          { ...exact(str('provider_account_id', 40)), isPrimary: true },
          { ...exact(str('recipient_key', 64)), isPrimary: true },
          exact(str('recipient_id', 255)),
          time('created_at'),
        ],
      }),
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('provider_recipients');
    await qr.dropColumn('payout_intents', 'provider_reference');
    await qr.dropColumn('payout_intents', 'provider');
    await qr.dropColumn('refunds', 'provider_reference');
    await qr.dropColumn('payment_intents', 'provider_redirect_url');
  }
}
