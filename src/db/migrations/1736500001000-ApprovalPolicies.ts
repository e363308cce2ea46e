import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions, TableIndex } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { id, int, isMysql, money, ref, str, text, time } from './schema-helpers';

/**
 * Approval policies (four eyes): per merchant, environment and currency, payouts at or above
 * `min_amount` need `approvals` votes (1-3); `keys_count` lets an API key's vote count. A
 * payout keeps the policy it was created under (`approvals_required`, `approval_rule`; null
 * rule = no policy, the spec's single approve), its creator, and the votes recorded so far.
 */
export class ApprovalPolicies1736500001000 implements MigrationInterface {
  name = 'ApprovalPolicies1736500001000';

  async up(qr: QueryRunner): Promise<void> {
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const exact = (c: TableColumnOptions): TableColumnOptions => (collation ? { ...c, charset: 'utf8mb4', collation } : c);
    await qr.createTable(
      new Table({
        name: 'approval_policies',
        columns: [
          exact(id()),
          exact(ref('merchant_id')),
          str('environment', 4),
          str('currency', 6),
          money(qr, 'min_amount'),
          int('approvals'),
          int('keys_count'),
          time('created_at'),
          time('updated_at'),
        ],
      }),
    );
    await qr.createIndex(
      'approval_policies',
      new TableIndex({ name: 'uq_approval_policies_currency', columnNames: ['merchant_id', 'environment', 'currency'], isUnique: true }),
    );
    await qr.addColumn('payout_intents', new TableColumn({ ...int('approvals_required'), default: 1 }));
    await qr.addColumn('payout_intents', new TableColumn(str('approval_rule', 16, true)));
    await qr.addColumn('payout_intents', new TableColumn(exact(ref('created_by', true))));
    await qr.addColumn('payout_intents', new TableColumn(text('approvals', true)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('payout_intents', 'approvals');
    await qr.dropColumn('payout_intents', 'created_by');
    await qr.dropColumn('payout_intents', 'approval_rule');
    await qr.dropColumn('payout_intents', 'approvals_required');
    await qr.dropTable('approval_policies');
  }
}
