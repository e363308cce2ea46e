/**
 * The unit of work. Every state transition runs inside `db.tx`, so the record change,
 * its event row and its ledger rows commit together or not at all. `unit` hands its function a
 * `Tx` (src/db/tx.ts): the unit's EntityManager and its transaction; the function returns its
 * value and the work for the unit's end (src/db/batch.ts `Written`), which the Tx sends with
 * the COMMIT. `tx` is a unit whose function leaves no such work.
 *
 * MySQL/MariaDB: each unit of work (`tx`, and `read`) takes its own pooled connection;
 * deadlocks and lock wait time-outs are retried, with exponential back-off. On a Galera
 * cluster a row lock only holds on its own node: a competing writer on another node is
 * refused at commit by certification (or aborted by the applier) with the same
 * ER_LOCK_DEADLOCK, and is retried the same way (docs/decisions/0026-galera-cluster.md).
 * Row locks (src/db/locking-read.ts) serialise competing writers. A unit of work that finds a row it
 * must lock missing throws `PrepareAndRetry`: the unit rolls back, the row is created and
 * committed on its own, and the unit reruns and locks it.
 *
 * Waiting on the server (DbSettings; docs/decisions/0030-database-timeouts-and-outages.md):
 *  - hard limits: waiting for a pooled connection, each statement, and the whole unit of
 *    work (retries included) (src/db/unit.ts). A unit that misses one has its connection
 *    destroyed and fails with `DatabaseUnavailableError` (503 `service_unavailable` with
 *    Retry-After);
 *  - the probe (src/db/outage.ts): a long wait, or an error that says the server cannot be
 *    reached, has the server asked on a connection of its own; one that does not answer is
 *    out, and units fail at once until it answers again.
 * A destroyed connection leaves the pool at once (the pool opens a new one; nothing needs a
 * restart) and the server rolls back whatever its unit had not committed when it sees the
 * close. A unit cut during its COMMIT may have committed: idempotency keys make that safe.
 *
 * SQLite: the driver has exactly one connection, so concurrent transactions would
 * interleave on it. Every unit of work (reads included, so no request can read another's
 * uncommitted rows) is queued and runs alone. That makes SQLite single-process only,
 * which is what an embedded database is for; two gateway processes need MySQL. Being
 * embedded and synchronous it cannot stall by network: no limits apply.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager, MigrationExecutor, QueryRunner } from 'typeorm';
import { DEFAULT_DB_SETTINGS, type DbSettings } from '../config';
import type { GuardForm, Written } from './batch';
import { destroyConnection, watchPool, within, type PoolConnection } from './deadline';
import { backoffMs, ConflictRetriesExhausted, isRetryable, isUniqueViolation, PrepareAndRetry, sleep } from './errors';
import { OutageProbe, type DbLog } from './outage';
import { countingLogger } from './query-counter';
import { Readers } from './readers';
import { Tx, type TxOptions } from './tx';
import { Units } from './unit';

export {
  DatabaseUnavailableError,
  driverErrorOf,
  isDatabaseUnavailable,
  mayHaveReachedDatabase,
  PrepareAndRetry,
  sleep,
  UNAVAILABLE_RETRY_AFTER_S,
} from './errors';
export type { DbLog } from './outage';
export type { IsolationLevel, TxOptions } from './tx';

/**
 * Attempts of a unit of work that keeps deadlocking before the error reaches the caller.
 * Ten, with back-off doubling from 5-10 ms up to 1 s (at most about 3 s in all): on Galera a hot row
 * (a merchant's event counter, a balance) written through three nodes at once loses
 * certification again and again, and five quick attempts ran out under that load.
 * DB_TX_TIMEOUT_MS bounds them all the same.
 */
const MAX_ATTEMPTS = 10;
/** How many prerequisites one unit of work may ask `tx` to prepare before it is treated as a bug. */
const MAX_PREPARES = 3;

export interface DbOptions {
  settings?: DbSettings;
  log?: DbLog;
  guardProviderCalls?: boolean;
  /** How end-of-unit batches guard their UPDATEs (src/db/batch.ts); false: by the row count. */
  guards?: GuardForm | false;
  /**
   * MySQL: servers that take `read` (DATABASE_READ_URLS), initialized; every `tx` stays on `ds`
   * (the writer). None: `read` runs on the writer too.
   */
  readers?: DataSource[];
}

/** Units of work that lost to concurrent writers (deadlock, lock wait time-out, Galera certification conflict). */
export interface ConflictCounts {
  /** Attempts rerun after such a loss. */
  retries: number;
  /** Units that lost every attempt (answered 503 service_unavailable). */
  exhausted: number;
}

export class Db {
  readonly kind: 'mysql' | 'sqlite';
  readonly settings: DbSettings;
  /** How end-of-unit batches guard their UPDATEs; set once at start (tests switch it). */
  guards: GuardForm | false;
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Set while a unit of work runs, so `outside` can refuse to run inside one; undefined when
   * the guard is off (`guardProviderCalls: false`, production): AsyncLocalStorage turns on V8's
   * promise hooks for the whole process, a measured 3-5% of a read's CPU.
   */
  private readonly inTx?: AsyncLocalStorage<true>;
  private readonly probe: OutageProbe;
  private readonly units: Units;
  /** The pool's connections, for the last resort of `close`. */
  private readonly poolConnections = new Set<PoolConnection>();
  readonly readers: Readers;
  /** Conflicts lost and retried by `tx`, since the start (database_conflict_* metrics). */
  readonly conflicts: ConflictCounts = { retries: 0, exhausted: 0 };

  constructor(
    readonly ds: DataSource,
    options: DbOptions = {},
  ) {
    this.kind = ds.options.type === 'mysql' ? 'mysql' : 'sqlite';
    if (options.guardProviderCalls !== false) this.inTx = new AsyncLocalStorage<true>();
    this.settings = options.settings ?? DEFAULT_DB_SETTINGS;
    this.guards = options.guards ?? false;
    // The open connections are kept for the last resort of `close` (their sockets closed when the pool does not end).
    watchPool(ds, this.poolConnections);
    this.probe = new OutageProbe(ds, this.settings, options.log);
    this.units = new Units(ds, this.settings, this.probe);
    this.readers = new Readers(options.readers ?? [], this.settings, options.log);
  }

  /** SQL statements sent so far. */
  get queryCount(): number {
    return countingLogger(this.ds)?.count ?? 0;
  }

  /** Queries sent so far (round trips): statements that went in another's query (src/db/tx.ts) count once. */
  get roundTripCount(): number {
    const logger = countingLogger(this.ds);
    return (logger?.count ?? 0) - (logger?.riding ?? 0);
  }

  /** False while the database is known to be out (MySQL); units then fail at once with 503. */
  get available(): boolean {
    return this.probe.available;
  }

  /** Called each time the database answers again after an outage (pending clean-ups run here). */
  onAvailable(listener: () => void): void {
    this.probe.onAvailable(listener);
  }

  /** Runs `fn` in one transaction, then COMMIT: a `unit` that leaves no end-of-unit work. */
  tx<T>(fn: (tx: Tx) => Promise<T>, options: TxOptions = {}): Promise<T> {
    return this.unit(async (tx) => ({ value: await fn(tx), end: [] }), options);
  }

  /**
   * Runs `fn` in one transaction, then the end-of-unit work it returned (in its order, the
   * merchant's hot locks last), then COMMIT; `fn`'s value. Retried from the start on deadlock or
   * lock wait time-out (MySQL), and after preparing what a `PrepareAndRetry` asked for. On MySQL
   * the whole of it, retries included, has DB_TX_TIMEOUT_MS.
   */
  async unit<T>(fn: (tx: Tx) => Promise<Written<T>>, options: TxOptions = {}): Promise<T> {
    const inTx = this.inTx;
    const unit = inTx ? (tx: Tx) => inTx.run(true, () => fn(tx)) : fn;
    if (this.kind === 'sqlite') return this.serial(() => this.withRunner((runner) => this.transaction(runner, unit, options)));
    const deadline = Date.now() + this.settings.txTimeoutMs;
    for (let attempt = 1, prepared = 0; ;) {
      try {
        return await this.units.run(deadline, (runner) => this.transaction(runner, unit, options));
      } catch (err) {
        if (!(err instanceof PrepareAndRetry)) {
          await this.afterLostRace(err, attempt++);
        } else if (++prepared > MAX_PREPARES) {
          throw new Error(`${err.message}, still after ${MAX_PREPARES} preparations`);
        } else {
          // The preparation's statements can lose a race too: that counts as an attempt of the unit.
          await this.units.run(deadline, (runner) => err.prepare(runner.manager)).catch((lost: unknown) => this.afterLostRace(lost, attempt++));
        }
      }
    }
  }

  /**
   * After an attempt failed with `err`: waits the back-off when it lost a race (a deadlock, a
   * lock wait time-out, or on Galera a certification conflict or a causal read that timed out),
   * so the caller runs it again. Anything else is thrown as it is; a lost race after
   * MAX_ATTEMPTS is ConflictRetriesExhausted (503 with Retry-After), never a 500.
   */
  private async afterLostRace(err: unknown, attempt: number): Promise<void> {
    if (!isRetryable(err)) throw err;
    if (attempt >= MAX_ATTEMPTS) {
      this.conflicts.exhausted++;
      throw new ConflictRetriesExhausted(attempt);
    }
    this.conflicts.retries++;
    await sleep(backoffMs(attempt));
  }

  /**
   * Runs `fn` (a provider call) where no transaction is open: a slow provider then holds
   * no row lock and, on SQLite, does not stall the queue. Called inside `tx`, it throws
   * (where the guard is on: everywhere but NODE_ENV=production, unless DB_TX_GUARD says).
   */
  async outside<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inTx?.getStore()) throw new Error('a provider call must not run inside a database transaction');
    return fn();
  }

  /**
   * Runs reads on one connection with no transaction (MySQL, with the unit's deadlines) or in
   * the queue (SQLite). With readers (src/db/readers.ts), on one of them; a read that one could
   * not serve runs on the writer. What must see the latest write under a lock belongs in `tx`.
   * A read that times out waiting for a Galera causal read (1205) is run again, as a unit is.
   */
  async read<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    if (this.kind === 'sqlite') return this.serial(() => fn(this.ds.manager));
    for (let attempt = 1; ; attempt++) {
      try {
        const read = await this.readers.run(Date.now() + this.settings.txTimeoutMs, (runner) => fn(runner.manager));
        if (read) return read.value;
        return await this.units.run(Date.now() + this.settings.txTimeoutMs, (runner) => fn(runner.manager));
      } catch (err) {
        await this.afterLostRace(err, attempt);
      }
    }
  }

  /**
   * Readiness (/readyz): the database answers within DB_PING_TIMEOUT_MS and every migration
   * is applied. On MySQL this is the probe (a connection of its own, so a pool that is busy,
   * not broken, does not make the service unready; the gate does not apply, and an answer
   * ends an outage).
   */
  async readiness(): Promise<'ready' | 'migrations pending'> {
    if (this.kind === 'sqlite') {
      const pending = await this.serial(() => this.withRunner((runner) => new MigrationExecutor(this.ds, runner).getPendingMigrations()));
      return pending.length > 0 ? 'migrations pending' : 'ready';
    }
    const known = new Set(await this.probe.readiness());
    const pending = this.ds.migrations.map((m) => m.name ?? m.constructor.name).filter((name) => !known.has(name));
    return pending.length > 0 ? 'migrations pending' : 'ready';
  }

  isUniqueViolation(err: unknown): boolean {
    return isUniqueViolation(err);
  }

  /**
   * Closes the pool. Bounded: a server that does not answer the goodbye within
   * DB_CONNECT_TIMEOUT_MS (at once during an outage) gets its sockets closed instead, so
   * shutdown never hangs on it.
   */
  async close(): Promise<void> {
    const out = this.probe.isOut;
    // Node keeps every enabled AsyncLocalStorage in one process-wide list and visits each one
    // at every promise the process creates: left enabled, each closed Db (a test worker closes
    // hundreds) made every later promise of the process cost more.
    this.inTx?.disable();
    this.units.close();
    this.probe.close();
    await this.readers.close();
    await this.queue.catch(() => undefined);
    if (!this.ds.isInitialized) return;
    const closing = this.ds.destroy();
    const limit = this.kind === 'sqlite' ? 60_000 : out ? 100 : this.settings.connectTimeoutMs;
    try {
      await within(closing, limit, () => new Error('pool close timed out'));
    } catch {
      closing.catch(() => undefined);
      for (const conn of this.poolConnections) {
        try {
          conn.stream?.destroy();
        } catch {
          /* already closed */
        }
      }
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async withRunner<T>(fn: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const runner = this.ds.createQueryRunner();
    try {
      return await fn(runner);
    } finally {
      await runner.release();
    }
  }

  /**
   * One transaction on `runner`, opened and ended by its Tx; a rollback that cannot be sent
   * means the connection is not reusable (MySQL: it is destroyed).
   */
  private async transaction<T>(runner: QueryRunner, fn: (tx: Tx) => Promise<Written<T>>, options: TxOptions): Promise<T> {
    const tx = new Tx(this.ds, runner, this.guards);
    try {
      await tx.begin(options);
      const { value, end } = await fn(tx);
      await tx.commitWith(end);
      return value;
    } catch (err) {
      try {
        await tx.rollback();
      } catch (rollbackError) {
        destroyConnection(runner, rollbackError instanceof Error ? rollbackError : new Error('rollback failed'));
      }
      throw err;
    }
  }
}
