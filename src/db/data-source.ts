/**
 * DataSource factory: MySQL/MariaDB when DATABASE_URL is set, otherwise an embedded
 * SQLite file. Schema changes only ever go through the migrations in ./migrations.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import * as mysql2 from 'mysql2';
import { DEFAULT_DB_SETTINGS, type DatabaseConfig, type DbSettings } from '../config';
import { MIGRATIONS } from './migrations';
import { CountingLogger } from './query-counter';
import { GALERA_CAUSAL_READS, mysqlWithSession } from './mysql-session';
import { StatementTimers } from './unit';

/** `entities` come from the module registry (src/modules/index.ts); the kernel names no module. */
export function createDataSource(
  database: DatabaseConfig,
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: Function[],
  logger = new CountingLogger(),
  settings: DbSettings = DEFAULT_DB_SETTINGS,
): DataSource {
  const common = {
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    logger,
    maxQueryExecutionTime: 1000,
  } as const;
  let options: DataSourceOptions;
  if (database.kind === 'mysql') {
    options = {
      ...common,
      type: 'mysql',
      // mysql2, with session settings on every new pooled connection and the pool's open
      // connections kept (./mysql-session.ts).
      driver: mysqlWithSession(mysql2, [GALERA_CAUSAL_READS], logger),
      // The statement limit of a unit of work times TypeORM's queries by their events (./unit.ts).
      subscribers: [StatementTimers],
      url: database.url,
      timezone: 'Z',
      charset: 'utf8mb4_unicode_ci',
      // A BIGINT (times, sequences, counts) comes back as a number while it is a safe integer,
      // a string beyond, as SQLite hands it over; every `bigint` column's transformer takes both
      // (./columns.ts). Money is DECIMAL: a string either way (decision 0187).
      supportBigNumbers: true,
      bigNumberStrings: false,
      // mysql2 bounds only the connect and handshake of a new connection; waiting for a pooled
      // connection and every statement are bounded by Db (src/db/db.ts), which also throws
      // away a connection that stopped answering.
      connectTimeout: settings.connectTimeoutMs,
      // trace: false: mysql2's promise API otherwise captures a stack trace for every statement
      // (Error.captureStackTrace, about 3% of a create's CPU) to decorate a driver error's
      // stack; errors reach the service as TypeORM's QueryFailedError, whose stack is its own.
      // A unit of work (src/db/tx.ts) sends its last statements as one query. Every
      // value is still bound by mysql2 (`?`), never spliced into SQL text.
      multipleStatements: true,
      // Hot reads are prepared statements (src/db/prepared.ts), cached per connection: a few
      // dozen shapes in use, so 256 per connection keeps them all while the server's global
      // max_prepared_stmt_count (16,382 by default) holds a pool of 20 in each of many processes.
      extra: { connectionLimit: settings.poolSize, decimalNumbers: false, trace: false, maxPreparedStatements: 256 },
    };
  } else {
    fs.mkdirSync(path.dirname(database.file), { recursive: true });
    options = {
      ...common,
      type: 'better-sqlite3',
      database: database.file,
      prepareDatabase: (db: { pragma(sql: string): unknown }) => {
        db.pragma('journal_mode = WAL');
        // In WAL mode NORMAL keeps every commit through a crash of the process, not of the machine
        // (a power loss can roll back the last commits, never corrupt the file); FULL syncs the log
        // at each commit. Production takes FULL (decision 0188).
        db.pragma(`synchronous = ${database.synchronous}`);
        db.pragma('busy_timeout = 5000');
        db.pragma('foreign_keys = ON');
      },
    };
  }
  return new DataSource(options);
}
