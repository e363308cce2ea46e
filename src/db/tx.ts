/**
 * `Tx`: one unit of work on one connection, in one transaction. The transaction is TypeORM's
 * (`startTransaction`, `commitTransaction`, `rollbackTransaction` on the unit's query runner),
 * so TypeORM's row locks (`setLock('pessimistic_write')`) work in it as they are documented to.
 *
 * A Tx is the unit's EntityManager (every TypeORM call made through it runs on its connection),
 * plus what the unit does at its end, asked for by name:
 *  - `atEnd(work)`: work that takes a merchant's hot locks (its event counter, its balance) is
 *    queued and runs after everything else the unit does, in the order queued, just before
 *    the COMMIT, so those locks are held only for the unit's end. Consecutive batches go as
 *    one multi-statement query on MySQL/MariaDB (src/db/batch.ts): one round trip.
 *  - `now(work)`: the same work, run at once (its statements still in one query).
 *  - `afterCommit(listener)`: runs once the COMMIT has succeeded (events announced to
 *    subscriptions); never after a rollback.
 * Each statement counts (and logs) as one; a query that carried several counts as one round trip.
 */
import { EntityManager, type DataSource, type QueryRunner } from 'typeorm';
import type { UnitOfWork } from '../domain/operation';
import type { Batch, EndWork, GuardForm, Statement } from './batch';
import { connectionOf } from './deadline';
import { multiStatementSafe } from './mysql-session';
import { logRidingQuery } from './query-counter';

/** MySQL's isolation levels (`SET TRANSACTION ISOLATION LEVEL ...`). */
export type IsolationLevel = 'READ UNCOMMITTED' | 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

export interface TxOptions {
  /** MySQL only: the isolation level of this transaction (the server default otherwise). */
  isolation?: IsolationLevel;
}

export class Tx extends EntityManager implements UnitOfWork {
  private readonly runner: QueryRunner;
  private readonly mysql: boolean;
  private readonly deferred: EndWork[] = [];
  private readonly commitListeners: (() => void)[] = [];
  private state: 'new' | 'open' | 'ending' | 'committed' | 'rolled back' = 'new';

  constructor(
    ds: DataSource,
    runner: QueryRunner,
    readonly guards: GuardForm | false,
  ) {
    super(ds, runner);
    this.runner = runner;
    this.mysql = ds.options.type === 'mysql';
  }

  /** Whether the transaction is open on the server (begun, not yet committed or rolled back). */
  get isOpen(): boolean {
    return this.state === 'open' || this.state === 'ending';
  }

  /** Queues `work` for the end of this unit of work, after everything else it does, in the order queued. */
  atEnd(work: EndWork): void {
    if (this.state !== 'open') throw new Error(`work queued for the end of a unit of work that is ${this.state}`);
    this.deferred.push(work);
  }

  /** Runs `work` now (a batch: its statements in one round trip where the connection allows); its result. */
  async now<R>(work: Batch<R> | (() => Promise<R>)): Promise<R> {
    if (!this.isOpen) throw new Error(`work run in a unit of work that is ${this.state}`);
    if (typeof work === 'function') return work();
    return (await this.sendBatches([work]))[0] as R;
  }

  afterCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /** Opens the transaction (with MySQL's isolation level, if asked). */
  async begin(options: TxOptions = {}): Promise<void> {
    if (this.state !== 'new') throw new Error('a unit of work begins once');
    await this.runner.startTransaction(this.mysql ? options.isolation : undefined);
    this.state = 'open';
  }

  /** Ends the unit: runs the queued work in order (work may queue more), COMMITs, then tells the `afterCommit` listeners. */
  async commit(): Promise<void> {
    if (this.state !== 'open') throw new Error(`commit of a unit of work that is ${this.state}`);
    const queue = this.deferred;
    while (queue.length > 0) {
      const first = queue.shift()!;
      if (typeof first === 'function') {
        await first();
        continue;
      }
      const batches = [first];
      while (queue.length > 0 && typeof queue[0] !== 'function') batches.push(queue.shift() as Batch);
      await this.sendBatches(batches);
    }
    this.state = 'ending';
    await this.runner.commitTransaction();
    this.state = 'committed';
    for (const listener of this.commitListeners) {
      try {
        listener();
      } catch {
        /* a listener's failure never affects the unit of work */
      }
    }
  }

  /** Rolls the transaction back (if it is open). */
  async rollback(): Promise<void> {
    if (this.state === 'new' || this.state === 'committed' || this.state === 'rolled back') return;
    this.state = 'rolled back';
    if (this.runner.isTransactionActive) await this.runner.rollbackTransaction();
  }

  /** Sends the batches' statements in one query; their `after`s' results, in order. */
  private async sendBatches(batches: Batch[]): Promise<unknown[]> {
    let results: unknown[];
    try {
      results = await this.send(batches.flatMap((b) => b.statements));
    } catch (err) {
      for (const b of batches) await b.recover?.(err);
      throw err;
    }
    const answers: unknown[] = [];
    let at = 0;
    for (const b of batches) {
      answers.push(await b.after(results.slice(at, at + b.statements.length)));
      at += b.statements.length;
    }
    return answers;
  }

  /** MySQL/MariaDB, and this connection's server may run several statements in one query (not a Galera node). */
  private together(): boolean {
    return this.mysql && multiStatementSafe(connectionOf(this.runner));
  }

  /**
   * The statements' results, in order. MySQL: one multi-statement query (the pool runs with
   * `multipleStatements`; every value is still bound by the driver, never spliced in by hand).
   * The query runner logs the query once: the other statements in it are counted here.
   */
  private async send(statements: Statement[]): Promise<unknown[]> {
    if (statements.length <= 1 || !this.together()) {
      const results: unknown[] = [];
      for (const s of statements) results.push(await this.sendOne(s));
      return results;
    }
    const raw = (await this.runner.query(
      statements.map((s) => s.sql).join(';\n'),
      statements.flatMap((s) => s.params),
    )) as unknown[];
    for (let i = 1; i < statements.length; i++) logRidingQuery(this.connection.logger, statements[i].sql, statements[i].params, this.runner);
    return raw;
  }

  /** One statement's answer as mysql2 gives it: SQLite's write answers with its row count, a read (RETURNING) with its rows. */
  private async sendOne(s: Statement): Promise<unknown> {
    if (this.mysql) return this.runner.query(s.sql, s.params);
    const r = await this.runner.query(s.sql, s.params, true);
    return r.affected !== undefined ? { affectedRows: r.affected } : r.records;
  }
}
