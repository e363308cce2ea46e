import { MigrationInterface, QueryRunner } from 'typeorm';
import { migrationCipher } from './cipher';
import { isMysql } from './schema-helpers';

/** Sealed values (FieldCipher.encrypt) start with `v1.` or `v2.`; a stored JSON answer never starts with a `v`. */
const SEALED = "LIKE 'v%'";
const BATCH = 200;

/**
 * Stored Idempotency-Key answers are sealed with the data encryption key from now on: the
 * answer to a webhook endpoint's create carries its `whsec_` signing secret, and others
 * carry personal data. This seals the rows already stored in clear (at most 24 hours of
 * them), and widens the column on MySQL/MariaDB: TEXT holds 65,535 bytes, and sealing an
 * answer to a 64 KiB request takes about 88 KiB (base64 of the ciphertext).
 */
export class SealedIdempotencyAnswers1733200000000 implements MigrationInterface {
  name = 'SealedIdempotencyAnswers1733200000000';

  async up(qr: QueryRunner): Promise<void> {
    if (isMysql(qr)) await qr.query('ALTER TABLE `idempotency_keys` MODIFY `response_body` MEDIUMTEXT NULL');
    await rewrite(qr, `response_body NOT ${SEALED}`, (plain) => migrationCipher().encrypt(plain));
  }

  async down(qr: QueryRunner): Promise<void> {
    await rewrite(qr, `response_body ${SEALED}`, (sealed) => migrationCipher().decrypt(sealed));
    if (isMysql(qr)) await qr.query('ALTER TABLE `idempotency_keys` MODIFY `response_body` TEXT NULL');
  }
}

/** Rewrites `response_body` of every row matching `where`, in id order, a batch at a time. */
async function rewrite(qr: QueryRunner, where: string, change: (body: string) => string): Promise<void> {
  for (let after = ''; ;) {
    const rows = (await qr.query(
      `SELECT id, response_body FROM idempotency_keys WHERE id > ? AND response_body IS NOT NULL AND ${where} ORDER BY id LIMIT ${BATCH}`,
      [after],
    )) as { id: string; response_body: string }[];
    for (const row of rows) {
      await qr.query('UPDATE idempotency_keys SET response_body = ? WHERE id = ?', [change(row.response_body), row.id]);
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1].id;
  }
}
