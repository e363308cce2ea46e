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
