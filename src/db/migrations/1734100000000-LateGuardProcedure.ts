import { MigrationInterface, QueryRunner } from 'typeorm';
import { isMariaDb } from '../charset';
import { isMysql } from './schema-helpers';
import { GUARD_PROCEDURE } from '../batch';
import { driverErrorOf } from '../db';

/** ER_DBACCESS_DENIED_ERROR, ER_TABLEACCESS_DENIED_ERROR, ER_SPECIFIC_ACCESS_DENIED_ERROR, ER_PROCACCESS_DENIED_ERROR. */
const ACCESS_DENIED = new Set([1044, 1142, 1227, 1370]);

/**
 * MySQL 8 only: the end-of-unit batch's guard (src/db/batch.ts `exactlyOneRow`) as a procedure,
 * because MySQL runs an IF only inside a stored program. `CALL gateway_expect_one_row(
 * ROW_COUNT(), tag)` right after an UPDATE raises SQLSTATE 45000 with the tag when the UPDATE
 * matched no row, which stops the multi-statement query there, its COMMIT included, as
 * MariaDB's inline IF does. SQL SECURITY INVOKER: it reads and writes nothing, and needs no
 * definer account to outlive the migration. A database user without CREATE ROUTINE gets no
 * procedure (the migration still applies): the start-up probe (src/app.ts) then leaves the
 * row count to be checked before the COMMIT is sent, one round trip more per write.
 */
export class LateGuardProcedure1734100000000 implements MigrationInterface {
  name = 'LateGuardProcedure1734100000000';

  async up(qr: QueryRunner): Promise<void> {
    if (!isMysql(qr) || (await isMariaDb(qr))) return;
    try {
      await qr.query(`CREATE PROCEDURE ${GUARD_PROCEDURE}(IN matched BIGINT, IN tag VARCHAR(64)) NO SQL DETERMINISTIC SQL SECURITY INVOKER
        BEGIN IF matched <> 1 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = tag; END IF; END`);
    } catch (err) {
      const errno = driverErrorOf(err)?.errno;
      if (typeof errno !== 'number' || !ACCESS_DENIED.has(errno)) throw err;
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    if (isMysql(qr)) await qr.query(`DROP PROCEDURE IF EXISTS ${GUARD_PROCEDURE}`);
  }
}
