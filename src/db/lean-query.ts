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
 *
 * Fewer round trips for a transaction (issue 11): its opening (`START TRANSACTION`, and
 * `SET TRANSACTION ISOLATION LEVEL` before it) is held back and sent in front of the
 * transaction's first statement, in the same query; a transaction that sends nothing sends
 * neither it nor its COMMIT/ROLLBACK. Its COMMIT may go out with the transaction's last
 * statements (`commitWithLast`, src/db/late.ts); TypeORM's own COMMIT that follows is then
 * answered here without a round trip (its commit broadcast runs as usual), and any other
 * statement after it is a bug, refused. Each statement still counts (and logs) as one.
 */
import { QueryFailedError, QueryResult, type DataSource, type QueryRunner } from 'typeorm';
import { QueryRunnerAlreadyReleasedError } from 'typeorm/error/QueryRunnerAlreadyReleasedError';
import { logRidingQuery } from './query-counter';

interface CallbackConnection {
  query(sql: string, values: unknown[] | undefined, cb: (err: Error | null, rows: unknown) => void): unknown;
}

/** Whether an entity subscriber would miss the lean path's statements. */
export function queriesObserved(ds: DataSource): boolean {
  return ds.subscribers.some((s) => typeof s.beforeQuery === 'function' || typeof s.afterQuery === 'function');
}

/** What a runner's lean query holds between two statements. */
interface Folding {
  /** The transaction's opening, not sent yet (it goes in front of the next statement). */
  held: string[];
  /** The transaction's COMMIT went with its last statements. */
  committed: boolean;
}

const foldings = new WeakMap<QueryRunner, Folding>();

const OPENING = /^(START TRANSACTION|SET TRANSACTION ISOLATION LEVEL [A-Z ]+)$/;

/**
 * Whether `runner`'s next query may carry the transaction's COMMIT at its end (the lean query
 * runs it, in a transaction); `committed` then says it went out and succeeded.
 */
export function commitWithLast(runner: QueryRunner | undefined): { committed(): void } | undefined {
  const folding = runner && foldings.get(runner);
  if (!folding || !runner.isTransactionActive) return undefined;
  return { committed: () => (folding.committed = true) };
}

export function leanMysqlQuery(runner: QueryRunner): QueryRunner['query'] {
  const ds = runner.connection;
  const slowAfterMs = ds.options.maxQueryExecutionTime;
  const folding: Folding = { held: [], committed: false };
  foldings.set(runner, folding);
  const nothing = (structured: boolean) => (structured ? new QueryResult() : undefined);
  return (async (sql: string, parameters?: unknown[], structured: boolean = false) => {
    if (runner.isReleased) throw new QueryRunnerAlreadyReleasedError();
    if (OPENING.test(sql)) {
      folding.held.push(sql);
      return nothing(structured);
    }
    if (sql === 'COMMIT' || sql === 'ROLLBACK') {
      if (folding.committed || folding.held.length > 0) {
        // COMMIT: it went with the last statements. Either: the transaction never reached the server.
        folding.committed = false;
        folding.held = [];
        return nothing(structured);
      }
    } else if (folding.committed) {
      throw new Error(`a statement after its transaction's COMMIT was sent: ${sql.slice(0, 40)}`);
    }
    const conn = (await runner.connect()) as CallbackConnection;
    const opening = folding.held;
    folding.held = [];
    for (const held of opening) logRidingQuery(ds.logger, held, [], runner);
    ds.logger.logQuery(sql, parameters, runner);
    const started = Date.now();
    try {
      const sent = opening.length > 0 ? `${opening.join(';\n')};\n${sql}` : sql;
      const all = await new Promise<unknown>((resolve, reject) => {
        conn.query(sent, parameters, (err, rows) => (err ? reject(err) : resolve(rows)));
      });
      // Behind the opening's answers: the statement's own, or a multi-statement query's list of them.
      const rest = opening.length > 0 ? (all as unknown[]).slice(opening.length) : undefined;
      const raw = rest === undefined ? all : rest.length === 1 ? rest[0] : rest;
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
