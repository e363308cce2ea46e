/** Column helpers so one migration reads the same on MySQL/MariaDB and SQLite. */
import { QueryRunner, TableColumnOptions } from 'typeorm';

export const isMysql = (qr: QueryRunner): boolean => qr.connection.options.type === 'mysql';

export const id = (name = 'id'): TableColumnOptions => ({ name, type: 'varchar', length: '40', isPrimary: true });
export const ref = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'varchar', length: '40', isNullable: nullable });
export const str = (name: string, length: number, nullable = false): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
export const text = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'text', isNullable: nullable });
export const int = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'int', isNullable: nullable });
/** Epoch milliseconds (UTC). */
export const time = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable: nullable });
/** Minor units: exact DECIMAL(38,0) on MySQL, TEXT on SQLite (whose NUMERIC affinity is lossy). */
export const money = (qr: QueryRunner, name: string): TableColumnOptions =>
  isMysql(qr) ? { name, type: 'decimal', precision: 38, scale: 0 } : { name, type: 'text' };

/** A money column that starts at zero on existing rows. */
export const moneyZero = (qr: QueryRunner, name: string): TableColumnOptions =>
  isMysql(qr) ? { ...money(qr, name), default: 0 } : { ...money(qr, name), default: "'0'" };

/**
 * Runs `change` on `table` keeping its expression indexes on SQLite. TypeORM alters a SQLite
 * table (addColumn, dropColumn, changeColumn, ...) by recreating it from what it reads back,
 * and reads an expression index's expression as a column named null: the recreate fails. So a
 * migration that alters a table with an expression index (`ix_<table>_amount_sort` of
 * payment_intents, payout_intents, topup_intents and refunds: SortIndexes1741617900000) drops
 * those indexes first and creates them again after, exactly as they were. On MySQL/MariaDB,
 * `change` runs alone.
 */
export async function keepingExpressionIndexes(qr: QueryRunner, table: string, change: () => Promise<void>): Promise<void> {
  if (isMysql(qr)) return change();
  const indexes = (await qr.query(`SELECT "name", "sql" FROM "sqlite_master" WHERE "type" = 'index' AND "tbl_name" = ? AND "sql" IS NOT NULL`, [table])) as {
    name: string;
    sql: string;
  }[];
  const expression: { name: string; sql: string }[] = [];
  for (const index of indexes) {
    const columns = (await qr.query(`PRAGMA index_info("${index.name}")`)) as { name: string | null }[];
    if (columns.some((c) => c.name === null)) expression.push(index);
  }
  for (const index of expression) await qr.query(`DROP INDEX "${index.name}"`);
  await change();
  for (const index of expression) await qr.query(index.sql);
}
