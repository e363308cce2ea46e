import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { str } from './schema-helpers';

/**
 * Who acted: `actor` on events and audit entries, the wire's `{ type, id, restricted }` or
 * `{ type, id, email }` as JSON. Nullable: rows written before this column have none, and
 * changes no API caller made (the scheduler, a provider's settlement, the payer's page) never do.
 */
export class Actors1740100000000 implements MigrationInterface {
  name = 'Actors1740100000000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('events', new TableColumn(str('actor', 512, true)));
    await qr.addColumn('audit_log', new TableColumn(str('actor', 512, true)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('audit_log', 'actor');
    await qr.dropColumn('events', 'actor');
  }
}
