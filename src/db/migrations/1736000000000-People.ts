import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex } from 'typeorm';
import { binaryNoPadCollation } from '../charset';
import { id, int, isMysql, ref, str, text, time } from './schema-helpers';

/**
 * A merchant's people: users (email unique case-insensitively through `email_normalized`,
 * an argon2id password hash, a sealed TOTP secret), memberships (user x merchant, one role),
 * one-time setup links and sign-in sessions (tokens stored only as SHA-256 digests), and
 * single-use recovery codes (SHA-256 digests: they are random, like tokens).
 */
export class People1736000000000 implements MigrationInterface {
  name = 'People1736000000000';

  async up(qr: QueryRunner): Promise<void> {
    const collation = isMysql(qr) ? await binaryNoPadCollation(qr) : undefined;
    const exact = (c: TableColumnOptions): TableColumnOptions => (collation ? { ...c, charset: 'utf8mb4', collation } : c);
    await qr.createTable(
      new Table({
        name: 'users',
        columns: [
          exact(id()),
          str('email', 320),
          exact(str('email_normalized', 320)),
          str('display_name', 200, true),
          str('password_hash', 200, true),
          text('totp_secret_encrypted', true),
          time('totp_enabled_at', true),
          int('totp_last_step', true),
          time('locked_at', true),
          time('password_changed_at', true),
          time('created_at'),
        ],
      }),
    );
    await qr.createIndex('users', new TableIndex({ name: 'uq_users_email', columnNames: ['email_normalized'], isUnique: true }));
    await qr.createTable(
      new Table({
        name: 'memberships',
        columns: [exact(id()), exact(ref('user_id')), exact(ref('merchant_id')), str('role', 16), time('created_at')],
        foreignKeys: [
          { columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'] },
          { columnNames: ['merchant_id'], referencedTableName: 'merchants', referencedColumnNames: ['id'] },
        ],
      }),
    );
    await qr.createIndex('memberships', new TableIndex({ name: 'uq_memberships_pair', columnNames: ['user_id', 'merchant_id'], isUnique: true }));
    await qr.createIndex('memberships', new TableIndex({ name: 'ix_memberships_merchant', columnNames: ['merchant_id', 'role'] }));
    await qr.createTable(
      new Table({
        name: 'setup_links',
        columns: [
          exact(id()),
          exact(str('token_hash', 64)),
          exact(ref('user_id')),
          exact(ref('merchant_id')),
          time('expires_at'),
          time('used_at', true),
          time('created_at'),
        ],
        foreignKeys: [{ columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex('setup_links', new TableIndex({ name: 'uq_setup_links_token', columnNames: ['token_hash'], isUnique: true }));
    await qr.createTable(
      new Table({
        name: 'sessions',
        columns: [
          exact(id()),
          exact(str('token_hash', 64)),
          exact(ref('user_id')),
          exact(ref('merchant_id')),
          str('environment', 4),
          int('second_factor', false),
          str('user_agent', 200, true),
          time('created_at'),
          time('last_seen_at'),
          time('expires_at'),
          time('ended_at', true),
        ],
        foreignKeys: [{ columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex('sessions', new TableIndex({ name: 'uq_sessions_token', columnNames: ['token_hash'], isUnique: true }));
    await qr.createIndex('sessions', new TableIndex({ name: 'ix_sessions_user', columnNames: ['user_id', 'ended_at'] }));
    await qr.createTable(
      new Table({
        name: 'recovery_codes',
        columns: [exact(id()), exact(ref('user_id')), exact(str('code_hash', 64)), time('used_at', true), time('created_at')],
        foreignKeys: [{ columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'] }],
      }),
    );
    await qr.createIndex('recovery_codes', new TableIndex({ name: 'ix_recovery_codes_user', columnNames: ['user_id'] }));
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const table of ['recovery_codes', 'sessions', 'setup_links', 'memberships', 'users']) await qr.dropTable(table);
  }
}
