/**
 * MySQL statements without TypeORM's per-statement detour. `MysqlQueryRunner.query` wraps the
 * pooled mysql2 connection in a new promise wrapper for every statement (`.promise()`, which
 * runs `require()` each time, and captures a stack trace per call) and broadcasts
 * BeforeQuery/AfterQuery to entity subscribers. A CPU profile of a REST read on MariaDB had
 * the `require()` alone at about 10 µs per statement.
 *
 * `leanMysqlQuery` does what that method does for this service, on the connection's callback
 * API: the logger's logQuery (statement count), logQuerySlow past `maxQueryExecutionTime`,
 * logQueryError, the driver error wrapped in TypeORM's `QueryFailedError` (what the error
 * mapping reads), and the structured result when asked. It is used only while no entity
 * subscriber listens to queries (the event service's subscriber listens to commits and
 * rollbacks only); otherwise TypeORM's own method stays.
 */
import { QueryFailedError, QueryResult, type DataSource, type QueryRunner } from 'typeorm';
import { QueryRunnerAlreadyReleasedError } from 'typeorm/error/QueryRunnerAlreadyReleasedError';

interface CallbackConnection {
  query(sql: string, values: unknown[] | undefined, cb: (err: Error | null, rows: unknown) => void): unknown;
}

/** Whether an entity subscriber would miss the lean path's statements. */
export function queriesObserved(ds: DataSource): boolean {
  return ds.subscribers.some((s) => typeof s.beforeQuery === 'function' || typeof s.afterQuery === 'function');
}

export function leanMysqlQuery(runner: QueryRunner): QueryRunner['query'] {
  const ds = runner.connection;
  const slowAfterMs = ds.options.maxQueryExecutionTime;
  return (async (sql: string, parameters?: unknown[], structured = false) => {
    if (runner.isReleased) throw new QueryRunnerAlreadyReleasedError();
    const conn = (await runner.connect()) as CallbackConnection;
    ds.logger.logQuery(sql, parameters, runner);
    const started = Date.now();
    try {
      const raw = await new Promise<unknown>((resolve, reject) => {
        conn.query(sql, parameters, (err, rows) => (err ? reject(err) : resolve(rows)));
      });
      const ms = Date.now() - started;
      if (slowAfterMs && ms > slowAfterMs) ds.logger.logQuerySlow(ms, sql, parameters, runner);
      if (!structured) return raw;
      const result = new QueryResult();
      result.raw = raw;
      if (Array.isArray(raw)) result.records = raw;
      if (raw && typeof raw === 'object' && Object.prototype.hasOwnProperty.call(raw, 'affectedRows')) {
        result.affected = (raw as { affectedRows: number }).affectedRows;
      }
      return result;
    } catch (err) {
      const ms = Date.now() - started;
      if (slowAfterMs && ms > slowAfterMs) ds.logger.logQuerySlow(ms, sql, parameters, runner);
      ds.logger.logQueryError(err as Error, sql, parameters, runner);
      throw new QueryFailedError(sql, parameters, err as Error);
    }
  }) as QueryRunner['query'];
}
