import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { isMysql, ref } from './schema-helpers';

/**
 * The person an API key counts as when approvals are counted: the member who made it (`usr_...`),
 * or, for a key made or rolled by another key, that key's person. Null: a key the operator made
 * with the CLI (every key before this column included), which counts as itself.
 */
export class ApiKeyCreator1740400000000 implements MigrationInterface {
  name = 'ApiKeyCreator1740400000000';

  async up(qr: QueryRunner): Promise<void> {
    // An id: byte-exact like every id column (a binary NO PAD collation on MySQL/MariaDB).
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const column = ref('created_by', true);
    await qr.addColumn('api_keys', new TableColumn(collation ? { ...column, charset: 'utf8mb4', collation } : column));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('api_keys', 'created_by');
  }
}
