import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Provider calls between atomic phases: `provider_call` is the recovery point of a payment
 * whose provider start was committed as begun (`start`) but whose answer is not recorded
 * yet. The scheduler resumes such payments after a crash; the index serves that scan.
 */
export class ProviderCalls1732838400000 implements MigrationInterface {
  name = 'ProviderCalls1732838400000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('payment_intents', new TableColumn({ name: 'provider_call', type: 'varchar', length: '16', isNullable: true }));
    await qr.createIndex('payment_intents', new TableIndex({ name: 'ix_payment_intents_provider_call', columnNames: ['provider_call', 'updated_at'] }));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('payment_intents', 'ix_payment_intents_provider_call');
    await qr.dropColumn('payment_intents', 'provider_call');
  }
}
