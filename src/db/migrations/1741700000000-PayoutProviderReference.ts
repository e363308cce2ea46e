import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * A provider's webhook about a transfer finds its payout by the account and the transfer's id
 * (payout_intents.provider, provider_reference), as a payment is found by its charge.
 */
export class PayoutProviderReference1741700000000 implements MigrationInterface {
  name = 'PayoutProviderReference1741700000000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.createIndex('payout_intents', new TableIndex({ name: 'ix_payout_intents_provider_ref', columnNames: ['provider', 'provider_reference'] }));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('payout_intents', 'ix_payout_intents_provider_ref');
  }
}
