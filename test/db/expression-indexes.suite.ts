/**
 * SQLite's expression indexes (`ix_<table>_amount_sort`, migration 1741617900000) and later
 * migrations: TypeORM recreates a SQLite table to alter it and cannot read an expression
 * back, so an alteration fails unless `keepingExpressionIndexes` wraps it; wrapped, the table
 * is altered and the index is there again, the same. (MySQL/MariaDB alter in place.)
 */
import { TableColumn } from 'typeorm';
import { startServer, TestServer } from '../helpers/server';
import { describeIf, usingMysql } from '../helpers/skip';
import { keepingExpressionIndexes } from '../../src/db/migrations/schema-helpers';

describeIf(!usingMysql(), 'SQLite only: MySQL and MariaDB have no expression indexes here')('expression indexes and later migrations', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ scheduler: false });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
  });

  const indexSql = async (): Promise<string | undefined> => {
    const rows: { sql: string }[] = await srv.app.db.ds.query(`SELECT "sql" FROM "sqlite_master" WHERE "name" = 'ix_payment_intents_amount_sort'`);
    return rows[0]?.sql;
  };

  test('an addColumn on a table with one fails alone, and works inside keepingExpressionIndexes', async () => {
    const before = await indexSql();
    expect(before).toContain('length("amount")');
    const qr = srv.app.db.ds.createQueryRunner();
    try {
      // Alone (in a transaction, rolled back: SQLite's DDL is transactional), the recreate fails.
      await qr.startTransaction();
      await expect(qr.addColumn('payment_intents', new TableColumn({ name: 'probe_a', type: 'text', isNullable: true }))).rejects.toThrow();
      await qr.rollbackTransaction();
      expect(await indexSql()).toBe(before);
      await keepingExpressionIndexes(qr, 'payment_intents', () =>
        qr.addColumn('payment_intents', new TableColumn({ name: 'probe_b', type: 'text', isNullable: true })),
      );
      expect(await qr.hasColumn('payment_intents', 'probe_b')).toBe(true);
      expect(await indexSql()).toBe(before);
    } finally {
      await qr.release();
    }
  });
});
