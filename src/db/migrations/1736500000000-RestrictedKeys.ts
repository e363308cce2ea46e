import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { str, time } from './schema-helpers';

/**
 * Restricted keys, key rolls and last use: a key's grants (null = a full key), the end of a
 * rolled key's overlap, and when it was last used (to the minute).
 */
export class RestrictedKeys1736500000000 implements MigrationInterface {
  name = 'RestrictedKeys1736500000000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('api_keys', new TableColumn(str('permissions', 1024, true)));
    await qr.addColumn('api_keys', new TableColumn(time('expires_at', true)));
    await qr.addColumn('api_keys', new TableColumn(time('last_used_at', true)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('api_keys', 'last_used_at');
    await qr.dropColumn('api_keys', 'expires_at');
    await qr.dropColumn('api_keys', 'permissions');
  }
}
