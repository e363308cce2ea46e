import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { isMysql, ref, str } from './schema-helpers';

/**
 * Who did what, and keys people can tell apart:
 * - `audit_log.actor_id`: the id in `actor` (key_... or usr_...) as a column of its own, so the
 *   audit log filters by actor as a range of (merchant_id, environment, actor_id, created_at,
 *   id), as it does by record. Existing rows get it from their `actor` JSON.
 * - `api_keys.name`: a name given when a key is created (null for keys made before; a roll's
 *   new key keeps its name).
 */
export class TeamAuditAndKeyNames1740400000001 implements MigrationInterface {
  name = 'TeamAuditAndKeyNames1740400000001';

  async up(qr: QueryRunner): Promise<void> {
    // An id: byte-exact like every id column (a binary NO PAD collation on MySQL/MariaDB).
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const column = ref('actor_id', true);
    await qr.addColumn('audit_log', new TableColumn(collation ? { ...column, charset: 'utf8mb4', collation } : column));
    const fromJson = isMysql(qr) ? "JSON_UNQUOTE(JSON_EXTRACT(actor, '$.id'))" : "json_extract(actor, '$.id')";
    await qr.query(`UPDATE audit_log SET actor_id = ${fromJson} WHERE actor IS NOT NULL`);
    await qr.createIndex(
      'audit_log',
      new TableIndex({ name: 'ix_audit_log_actor_list', columnNames: ['merchant_id', 'environment', 'actor_id', 'created_at', 'id'] }),
    );
    await qr.addColumn('api_keys', new TableColumn(str('name', 100, true)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('api_keys', 'name');
    await qr.dropIndex('audit_log', 'ix_audit_log_actor_list');
    await qr.dropColumn('audit_log', 'actor_id');
  }
}
