/**
 * TypeORM logger that counts statements (tests use it to pin N+1 regressions) and
 * forwards errors and slow queries to the structured log.
 */
import type { Logger as OrmLogger } from 'typeorm';
import type { Logger } from 'pino';

export class CountingLogger implements OrmLogger {
  count = 0;

  constructor(private readonly out?: Logger) {}

  logQuery(query: string): void {
    this.count++;
    this.out?.trace({ query }, 'sql');
  }
  logQueryError(error: string | Error, query: string): void {
    this.out?.debug({ err: error, query }, 'sql error');
  }
  logQuerySlow(time: number, query: string): void {
    this.out?.warn({ time, query }, 'slow sql');
  }
  logSchemaBuild(): void {}
  logMigration(message: string): void {
    this.out?.info(message);
  }
  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.out?.warn({ message }, 'typeorm');
  }
}
