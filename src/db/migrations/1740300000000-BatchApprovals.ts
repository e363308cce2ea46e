import { MigrationInterface, QueryRunner, TableColumn, TableColumnOptions } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { int, isMysql, ref, str, text } from './schema-helpers';

/**
 * A payout batch goes through the approval gate as a payout does: it keeps the strictest
 * policy of its currency totals at creation (`approvals_required`, `approval_rule`; null rule =
 * no policy, one approve), its creator, and the votes recorded so far.
 */
export class BatchApprovals1740300000000 implements MigrationInterface {
  name = 'BatchApprovals1740300000000';

  async up(qr: QueryRunner): Promise<void> {
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const exact = (c: TableColumnOptions): TableColumnOptions => (collation ? { ...c, charset: 'utf8mb4', collation } : c);
    await qr.addColumn('payout_batches', new TableColumn({ ...int('approvals_required'), default: 1 }));
    await qr.addColumn('payout_batches', new TableColumn(str('approval_rule', 16, true)));
    await qr.addColumn('payout_batches', new TableColumn(exact(ref('created_by', true))));
    await qr.addColumn('payout_batches', new TableColumn(text('approvals', true)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('payout_batches', 'approvals');
    await qr.dropColumn('payout_batches', 'created_by');
    await qr.dropColumn('payout_batches', 'approval_rule');
    await qr.dropColumn('payout_batches', 'approvals_required');
  }
}
