/**
 * TypeORM logger that counts statements (tests use it to pin N+1 regressions) and
 * forwards errors and slow queries to the structured log. A statement is named by its
 * verb and tables (safe-log.ts), never by its text or parameters; the duration of a slow
 * one is `durationMs` (pino's own `time` is the line's timestamp).
 */
import type { DataSource, Logger as OrmLogger, QueryRunner } from 'typeorm';
import type { Logger } from 'pino';
import { describeStatement, serializeError } from './safe-log';

export class CountingLogger implements OrmLogger {
  count = 0;
  /** Statements that went in another statement's query (src/db/tx.ts): `count - riding` queries were sent. */
  riding = 0;

  constructor(private readonly out?: Logger) {}

  logQuery(query: string): void {
    this.count++;
    if (this.out?.isLevelEnabled('trace')) this.out.trace(describeStatement(query), 'sql');
  }
  logQueryError(error: string | Error, query: string): void {
    if (this.out?.isLevelEnabled('debug')) this.out.debug({ err: serializeError(error), ...describeStatement(query) }, 'sql error');
  }
  logQuerySlow(time: number, query: string): void {
    this.out?.warn({ durationMs: time, ...describeStatement(query) }, 'slow sql');
  }
  logSchemaBuild(): void {}
  logMigration(message: string): void {
    this.out?.info(message);
  }
  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.out?.warn({ message: typeof message === 'string' ? message : String(message) }, 'typeorm');
  }
}

/** `ds`'s logger where it is a CountingLogger (the service's, src/db/data-source.ts): where Db can read its statement counts. */
export function countingLogger(ds: DataSource): CountingLogger | undefined {
  return ds.logger instanceof CountingLogger ? ds.logger : undefined;
}

/** Logs (and counts) a statement sent in the same query as another one: one more statement, no more round trip. */
export function logRidingQuery(logger: OrmLogger, sql: string, parameters: unknown[] | undefined, runner: QueryRunner | undefined): void {
  if (logger instanceof CountingLogger) logger.riding++;
  logger.logQuery(sql, parameters, runner);
}
