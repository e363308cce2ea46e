import { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './schema-helpers';

/**
 * Idempotency keys compare byte for byte. On MySQL/MariaDB the column inherited the
 * database's case-insensitive collation, so `Key-A` and `key-a` were the same key: the
 * second request got 409 idempotency_conflict or, with the same body, the other key's
 * replay. A binary NO PAD collation compares bytes (and ignores nothing). SQLite already
 * compares TEXT as bytes.
 */
export class IdempotencyKeyBinary1732838400000 implements MigrationInterface {
  name = 'IdempotencyKeyBinary1732838400000';

  private async collation(qr: QueryRunner): Promise<string> {
    const [{ v }] = (await qr.query('SELECT VERSION() AS v')) as { v: string }[];
    return /mariadb/i.test(v) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
  }

  async up(qr: QueryRunner): Promise<void> {
    if (!isMysql(qr)) return;
    await qr.query(`ALTER TABLE idempotency_keys MODIFY idem_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE ${await this.collation(qr)} NOT NULL`);
  }

  async down(qr: QueryRunner): Promise<void> {
    if (!isMysql(qr)) return;
    await qr.query('ALTER TABLE idempotency_keys MODIFY idem_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL');
  }
}
