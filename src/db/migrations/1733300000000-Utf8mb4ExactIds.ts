import { MigrationInterface, QueryRunner } from 'typeorm';
import { alignSchema, allTables } from '../charset';
import { isMysql } from './schema-helpers';

/**
 * MySQL/MariaDB only (see src/db/charset.ts):
 *
 * - Tables take the database's default character set when created. On a database created
 *   latin1, the earlier migrations made latin1 tables, which refuse (strict mode) or mangle
 *   Thai names, a BOM or an emoji. Every table of the database not in utf8mb4 is converted
 *   (on a fresh database they are empty, so this costs nothing), and the database default
 *   becomes utf8mb4 so later migrations create utf8mb4 tables whatever it was.
 * - Migration 1732579200000 made some identifiers exact (binary NO PAD) but not the ids:
 *   MariaDB's default collation matched `PO_...` and `po_... ` to `po_...`. Every `id` and
 *   `*_id` column now gets the binary NO PAD collation too. The foreign keys to
 *   merchants.id are dropped first and added back last (MariaDB refuses to change the
 *   collation of a column in a foreign key, even with foreign_key_checks off).
 *
 * Each altered table is rebuilt (a full copy): on large tables run it in a maintenance
 * window. SQLite stores UTF-8 and compares TEXT byte for byte already.
 */
export class Utf8mb4ExactIds1733300000000 implements MigrationInterface {
  name = 'Utf8mb4ExactIds1733300000000';

  async up(qr: QueryRunner): Promise<void> {
    if (!isMysql(qr)) return;
    await alignSchema(qr, await allTables(qr));
  }

  /** Ids compare as before (utf8mb4_unicode_ci); the identifiers of 1732579200000 stay exact and everything stays utf8mb4. */
  async down(qr: QueryRunner): Promise<void> {
    if (!isMysql(qr)) return;
    const earlier = new Set(['public_key', 'idem_key', 'merchant_reference', 'checkout_token']);
    await alignSchema(qr, await allTables(qr), (column) => earlier.has(column));
  }
}
