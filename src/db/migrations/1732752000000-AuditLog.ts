import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Audit log, part two: the table itself came with the Events migration; this adds the HTTP
 * status of the recorded call (201 create vs 200 "existing record returned") and the index
 * behind the resource filter.
 */
export class AuditLog1732752000000 implements MigrationInterface {
  name = 'AuditLog1732752000000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('audit_log', new TableColumn({ name: 'status_code', type: 'int', isNullable: true }));
    await qr.createIndex(
      'audit_log',
      new TableIndex({ name: 'ix_audit_log_resource', columnNames: ['merchant_id', 'environment', 'resource_id', 'created_at'] }),
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('audit_log', 'ix_audit_log_resource');
    await qr.dropColumn('audit_log', 'status_code');
  }
}
