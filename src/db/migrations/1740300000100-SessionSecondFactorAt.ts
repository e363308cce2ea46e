import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { time } from './schema-helpers';

/**
 * When a session's member last entered an authentication code (at sign-in, on turning the
 * authenticator on, or to confirm a step such as a live approval): a live approval needs one
 * from the last 5 minutes. Null: never in this session.
 */
export class SessionSecondFactorAt1740300000100 implements MigrationInterface {
  name = 'SessionSecondFactorAt1740300000100';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('sessions', new TableColumn(time('second_factor_at', true)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('sessions', 'second_factor_at');
  }
}
