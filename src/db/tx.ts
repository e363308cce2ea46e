/**
 * `Tx`: one unit of work on one connection, in one transaction.
 *
 * Who sends the transaction's statements:
 *  - SQLite: TypeORM (`startTransaction`, `commitTransaction`, `rollbackTransaction` on the
 *    unit's query runner).
 *  - MySQL/MariaDB: the Tx itself, as plain SQL through the runner's public `query`: START
 *    TRANSACTION, COMMIT and ROLLBACK are statements like any other, so they can share a
 *    round trip with the unit's first statement (`TxOptions.opening`) and with its last
 *    writes (the COMMIT goes in the same multi-statement query as the end-of-unit batches).
 *    TypeORM does not know a transaction is open, so its `setLock` is not used; locking reads
 *    are owned too (`lockedOne`, `lockedCount` in src/db/locking-read.ts). Nothing in a unit
 *    may call what would open a TypeORM transaction of its own (`save`, `remove`,
 *    `transaction`): a START TRANSACTION inside ours would commit it.
 *
 * A Tx is the unit's EntityManager (every TypeORM call made through it runs on its connection),
 * and how the unit ends. It keeps no queue: a service's write returns the work it leaves for the
 * end of the unit as values (src/db/batch.ts `EndWork`, `Written`), its callers pass them up,
 * and the one place that ends the unit hands them over, in order:
 *  - `commitWith(end)`: the unit's end. The end work takes a merchant's hot locks (its event
 *    counter, its balance), so it runs after everything else the unit did, in the order given,
 *    just before the COMMIT: those locks are held only for the unit's end. Consecutive batches
 *    go as one multi-statement query on MySQL/MariaDB (src/db/batch.ts), and the COMMIT rides
 *    with the last of them: one round trip. `Db.unit` calls it with what the unit's function
 *    returned (src/db/db.ts).
 *  - `write(end)`: the same work, sent now (consecutive batches still in one query), for a unit
 *    whose end another function owns; the COMMIT then goes on its own.
 *  - `now(work)`: one batch or function, run at once; its result.
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
  /**
   * The unit's first statement, sent with the START TRANSACTION in one query where the
   * connection allows (MySQL/MariaDB); its answer, or its error, is `tx.opened`.
   */
  opening?: Statement;
}

const START: Statement = { sql: 'START TRANSACTION', params: [] };
const COMMIT: Statement = { sql: 'COMMIT', params: [] };

export class Tx extends EntityManager implements UnitOfWork {
  private readonly runner: QueryRunner;
  private readonly mysql: boolean;
  private readonly commitListeners: (() => void)[] = [];
  private state: 'new' | 'open' | 'ending' | 'committed' | 'rolled back' = 'new';
  private opening: Promise<unknown> = Promise.resolve(undefined);

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

  /** Runs `work` now (a batch: its statements in one round trip where the connection allows); its result. */
  async now<R>(work: Batch<R> | (() => Promise<R>)): Promise<R> {
    if (!this.isOpen) throw new Error(`work run in a unit of work that is ${this.state}`);
    if (typeof work === 'function') return work();
    return (await this.sendBatches([work]))[0] as R;
  }

  /** Sends `end` now, in order, consecutive batches in one query (the COMMIT comes later, on its own). */
  async write(end: readonly EndWork[]): Promise<void> {
    if (!this.isOpen) throw new Error(`work run in a unit of work that is ${this.state}`);
    await this.run(end, false);
  }

  afterCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /** Opens the transaction (with MySQL's isolation level, if asked), with its opening statement. */
  async begin(options: TxOptions = {}): Promise<void> {
    if (this.state !== 'new') throw new Error('a unit of work begins once');
    if (!this.mysql) {
      await this.runner.startTransaction();
      this.state = 'open';
      if (options.opening) this.opening = this.settle(this.sendOne(options.opening));
      return;
    }
    const first = options.isolation ? [{ sql: `SET TRANSACTION ISOLATION LEVEL ${options.isolation}`, params: [] }, START] : [START];
    if (!options.opening) {
      await this.send(first);
      this.state = 'open';
      return;
    }
    const sent = this.send([...first, options.opening]);
    // Where both went in one query, an error is the opening's when the START was answered.
    this.state = 'open';
    this.opening = this.settle(sent.then((results) => results[results.length - 1]));
    await this.opening.catch(() => undefined);
  }

  /** The answer of the opening statement (TxOptions.opening); it throws that statement's error. */
  get opened(): Promise<unknown> {
    return this.opening;
  }

  /** `p`, marked handled (its error is for whoever asks `opened`, or nobody). */
  private settle(p: Promise<unknown>): Promise<unknown> {
    p.catch(() => undefined);
    return p;
  }

  /**
   * Ends the unit: runs `end` in order, COMMITs, then tells the `afterCommit` listeners. On
   * MySQL/MariaDB the COMMIT rides with the last batches when every check of theirs runs on the
   * server (a guard form): nothing is left to read from their answers that could refuse the unit
   * after its COMMIT.
   */
  async commitWith(end: readonly EndWork[]): Promise<void> {
    if (this.state !== 'open') throw new Error(`commit of a unit of work that is ${this.state}`);
    const committed = await this.run(end, this.mysql && this.guards !== false && this.together());
    this.state = 'ending';
    if (!committed) await this.sendCommit();
    this.state = 'committed';
    for (const listener of this.commitListeners) {
      try {
        listener();
      } catch {
        /* a listener's failure never affects the unit of work */
      }
    }
  }

  /**
   * Runs `end` in order: a function on its own, consecutive batches in one query. With
   * `commitLast`, the COMMIT goes in the query of the last batches when nothing follows them;
   * whether it did.
   */
  private async run(end: readonly EndWork[], commitLast: boolean): Promise<boolean> {
    let committed = false;
    for (let i = 0; i < end.length;) {
      const first = end[i++];
      if (typeof first === 'function') {
        await first();
        continue;
      }
      const batches = [first];
      while (i < end.length && typeof end[i] !== 'function') batches.push(end[i++] as Batch);
      const last = commitLast && i === end.length;
      if (last) this.state = 'ending';
      await this.sendBatches(batches, last ? COMMIT : undefined);
      committed = last;
    }
    return committed;
  }

  /** Rolls the transaction back (if it is open). */
  async rollback(): Promise<void> {
    if (this.state === 'new' || this.state === 'committed' || this.state === 'rolled back') return;
    this.state = 'rolled back';
    if (!this.mysql) {
      if (this.runner.isTransactionActive) await this.runner.rollbackTransaction();
      return;
    }
    await this.runner.query('ROLLBACK');
  }

  private async sendCommit(): Promise<void> {
    if (this.mysql) await this.runner.query(COMMIT.sql);
    else await this.runner.commitTransaction();
  }

  /** Sends the batches' statements in one query (then `trailer`, e.g. the COMMIT); their `after`s' results, in order. */
  private async sendBatches(batches: Batch[], trailer?: Statement): Promise<unknown[]> {
    let results: unknown[];
    try {
      const statements = batches.flatMap((b) => b.statements);
      results = await this.send(trailer ? [...statements, trailer] : statements);
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
