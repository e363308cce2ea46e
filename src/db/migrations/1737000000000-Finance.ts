import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { id, int, isMysql, money, ref, str, time } from './schema-helpers';

/**
 * Fees and balance transactions (docs/finance.md):
 * - `fee_schedules` (one per merchant and environment: tax on fees, payout fee) and
 *   `fee_rates` (one per payment method of a schedule: percentage and fixed amount);
 * - `balance_transactions`, the read model of the available balance: one row per movement,
 *   written by the ledger in the transaction of its entries. Existing ledger entries that
 *   moved available money are copied in (one row per record and entry type), so the model
 *   starts complete: the sum of a scope's rows is its available balance.
 */
export class Finance1737000000000 implements MigrationInterface {
  name = 'Finance1737000000000';

  async up(qr: QueryRunner): Promise<void> {
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const exact = (c: TableColumnOptions): TableColumnOptions => (collation ? { ...c, charset: 'utf8mb4', collation } : c);
    const scope = [exact(id()), exact(ref('merchant_id')), str('environment', 4)];
    const merchantKey = [{ columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] }];
    await qr.createTable(
      new Table({
        name: 'fee_schedules',
        columns: [...scope, int('tax_bps'), money(qr, 'payout_fixed'), time('updated_at')],
        foreignKeys: merchantKey,
        indices: [{ name: 'uq_fee_schedules_scope', columnNames: ['merchant_id', 'environment'], isUnique: true }],
      }),
    );
    await qr.createTable(
      new Table({
        name: 'fee_rates',
        columns: [...scope, str('payment_method', 40), int('percent_bps'), money(qr, 'fixed'), time('updated_at')],
        foreignKeys: merchantKey,
        indices: [{ name: 'uq_fee_rates_method', columnNames: ['merchant_id', 'environment', 'payment_method'], isUnique: true }],
      }),
    );
    await qr.createTable(
      new Table({
        name: 'balance_transactions',
        columns: [
          ...scope,
          str('currency', 6),
          str('type', 24),
          money(qr, 'amount'),
          money(qr, 'fee'),
          money(qr, 'net'),
          money(qr, 'tax'),
          str('status', 16),
          time('available_on'),
          str('source_type', 32),
          exact(ref('source_id')),
          time('created_at'),
        ],
        foreignKeys: merchantKey,
      }),
    );
    const ix = (name: string, columns: string[]) => qr.createIndex('balance_transactions', new TableIndex({ name, columnNames: columns }));
    await ix('ix_balance_transactions_list', ['merchant_id', 'environment', 'created_at', 'id']);
    await ix('ix_balance_transactions_type_list', ['merchant_id', 'environment', 'type', 'created_at', 'id']);
    await ix('ix_balance_transactions_currency_list', ['merchant_id', 'environment', 'currency', 'created_at', 'id']);
    await ix('ix_balance_transactions_source', ['source_id', 'created_at', 'id']);
    await this.backfill(qr);
  }

  /** One row per (record, entry type, instant) of the ledger's movements on available. */
  private async backfill(qr: QueryRunner): Promise<void> {
    const mysql = isMysql(qr);
    const typeOf = `CASE entry_type
      WHEN 'payment_succeeded' THEN 'payment' WHEN 'refund_reserved' THEN 'refund' WHEN 'refund_released' THEN 'refund'
      WHEN 'payout_reserved' THEN 'payout' WHEN 'payout_released' THEN 'payout_reversal' WHEN 'topup_succeeded' THEN 'topup'
      ELSE 'adjustment' END`;
    // The id keeps the first entry's ULID (time-ordered) under the txn_ prefix.
    const txnId = mysql ? "CONCAT('txn_', SUBSTRING(MIN(id), 4))" : "'txn_' || substr(MIN(id), 4)";
    const sum = mysql ? 'SUM(amount)' : 'CAST(SUM(CAST(amount AS INTEGER)) AS TEXT)';
    await qr.query(
      `INSERT INTO balance_transactions (id, merchant_id, environment, currency, type, amount, fee, net, tax, status, available_on, source_type, source_id, created_at)
       SELECT ${txnId}, merchant_id, environment, currency, ${typeOf}, ${sum}, ${mysql ? '0' : "'0'"}, ${sum}, ${mysql ? '0' : "'0'"}, 'available', created_at, source_type, source_id, created_at
         FROM ledger_entries WHERE bucket = 'available'
        GROUP BY merchant_id, environment, currency, source_type, source_id, entry_type, created_at
       HAVING ${sum} <> ${mysql ? '0' : "'0'"}`,
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('balance_transactions');
    await qr.dropTable('fee_rates');
    await qr.dropTable('fee_schedules');
  }
}
