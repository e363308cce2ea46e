import { MigrationInterface, QueryRunner } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { isMysql } from './schema-helpers';

/**
 * Identifiers that clients send back must match byte for byte. MariaDB's default collation
 * (utf8mb4_unicode_ci) compares case- and accent-insensitively, so `Key-A` and `key-a` would
 * be one Idempotency-Key and `ORDER-1` / `order-1` one merchant reference, unlike on SQLite.
 * These columns get a binary NO PAD collation (a PAD SPACE one such as utf8mb4_bin would
 * still equate `key` and `key `); SQLite already compares TEXT byte for byte.
 */
const COLUMNS: ReadonlyArray<[table: string, column: string, length: number]> = [
  ['api_keys', 'public_key', 80],
  ['idempotency_keys', 'idem_key', 255],
  ['payout_intents', 'merchant_reference', 256],
  ['topup_intents', 'merchant_reference', 256],
  ['payment_intents', 'merchant_reference', 256],
  ['payment_intents', 'checkout_token', 64],
];

export class ExactMatchColumns1732579200000 implements MigrationInterface {
  name = 'ExactMatchColumns1732579200000';

  async up(qr: QueryRunner): Promise<void> {
    if (!isMysql(qr)) return;
    const collation = await binaryNoPadCollation(qr);
    for (const [table, column, length] of COLUMNS) {
      await qr.query(`ALTER TABLE \`${table}\` MODIFY \`${column}\` VARCHAR(${length}) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`);
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    if (!isMysql(qr)) return;
    for (const [table, column, length] of COLUMNS) {
      await qr.query(`ALTER TABLE \`${table}\` MODIFY \`${column}\` VARCHAR(${length}) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL`);
    }
  }
}
