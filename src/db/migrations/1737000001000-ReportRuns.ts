import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { id, int, isMysql, ref, str, text, time } from './schema-helpers';

/**
 * Report runs (docs/finance.md "Reports") and their CSV, stored as ordered chunks in the
 * database (every node of a cluster serves every file; no shared disk). A chunk is at most
 * 64 KiB of UTF-8: MEDIUMTEXT on MySQL/MariaDB.
 */
export class ReportRuns1737000001000 implements MigrationInterface {
  name = 'ReportRuns1737000001000';

  async up(qr: QueryRunner): Promise<void> {
    const mysql = isMysql(qr);
    const collation = mysql ? await binaryNoPadCollation(qr) : undefined;
    const exact = (c: TableColumnOptions): TableColumnOptions => (collation ? { ...c, charset: 'utf8mb4', collation } : c);
    const bigint = (name: string): TableColumnOptions => ({ name, type: 'bigint', isNullable: true });
    await qr.createTable(
      new Table({
        name: 'report_runs',
        columns: [
          exact(id()),
          exact(ref('merchant_id')),
          str('environment', 4),
          str('report_type', 40),
          text('parameters'),
          str('status', 16),
          bigint('row_count'),
          bigint('size_bytes'),
          str('error', 512, true),
          time('lease_until', true),
          time('expires_at', true),
          { ...int('file_deleted'), default: 0 },
          time('created_at'),
          time('updated_at'),
        ],
        foreignKeys: [{ columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] }],
        indices: [
          { name: 'ix_report_runs_list', columnNames: ['merchant_id', 'environment', 'created_at', 'id'] },
          { name: 'ix_report_runs_due', columnNames: ['status', 'lease_until'] },
          { name: 'ix_report_runs_expiry', columnNames: ['expires_at'] },
        ],
      }),
    );
    await qr.createTable(
      new Table({
        name: 'report_chunks',
        columns: [
          { ...exact(ref('report_run_id')), isPrimary: true },
          { ...int('seq'), isPrimary: true },
          { name: 'data', type: mysql ? 'mediumtext' : 'text' },
        ],
      }),
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('report_chunks');
    await qr.dropTable('report_runs');
  }
}
