/**
 * The unit of work. Every state transition runs inside `db.tx`, so the record change,
 * its event row and its ledger rows commit together or not at all.
 *
 * MySQL/MariaDB: each unit of work (`tx`, and `read`) takes its own pooled connection;
 * deadlocks and lock wait time-outs are retried, with exponential back-off. On a Galera
 * cluster a row lock only holds on its own node: a competing writer on another node is
 * refused at commit by certification (or aborted by the applier) with the same
 * ER_LOCK_DEADLOCK, and is retried the same way (docs/decisions.md, "Galera cluster").
 * Row locks (`forUpdate`) serialise competing writers. A unit of work that finds a row it
 * must lock missing throws `PrepareAndRetry`: the unit rolls back, the row is created and
 * committed on its own, and the unit reruns and locks it.
 *
 * Waiting on the server (DbSettings; docs/decisions.md "Database timeouts and outages"):
 *  - hard limits: waiting for a pooled connection, each statement, and the whole unit of
 *    work (retries included). A unit that misses one has its connection destroyed and fails
 *    with `DatabaseUnavailableError` (503 `service_unavailable` with Retry-After);
 *  - the probe: a wait longer than DB_PROBE_AFTER_MS, or an error that says the server
 *    cannot be reached, has the server asked on a connection of its own. A server that
 *    answers is only slow (lock waits, load): units go on. One that does not answer within
 *    DB_PROBE_TIMEOUT_MS is out: every unit waiting on it fails now, new units fail at once
 *    without touching the pool (the outage gate), and the probe keeps asking until the
 *    first answer ends the outage.
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
import {
  DataSource, EntityManager, MigrationExecutor, QueryFailedError, QueryRunner, SelectQueryBuilder, ObjectLiteral,
} from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';
import { DEFAULT_DB_SETTINGS, type DbSettings } from '../config';
import { ApiError } from '../domain/errors';
import { leanMysqlQuery, queriesObserved } from './lean-query';
import { CountingLogger } from './query-counter';

/** ER_LOCK_DEADLOCK is also how Galera reports a certification conflict or a brute-force abort. */
const RETRYABLE_MYSQL = new Set([1213 /* ER_LOCK_DEADLOCK */, 1205 /* ER_LOCK_WAIT_TIMEOUT */]);
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
/** Seconds a client is asked to wait (Retry-After) when the database is unavailable. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;
/** Pause between two probes of a database that is out (each waits up to DB_PROBE_TIMEOUT_MS). */
const PROBE_PAUSE_MS = 500;

/**
 * Errors that say the server cannot be reached or cannot serve now (as opposed to an
 * error of the statement): the request is answered 503 and may be retried as it is.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT',
]);
const UNAVAILABLE_MYSQL = new Set([
  1040, // ER_CON_COUNT_ERROR: too many connections
  1047, // ER_UNKNOWN_COM_ERROR: Galera "WSREP has not yet prepared node for application use"
  1053, // ER_SERVER_SHUTDOWN
  1203, // ER_TOO_MANY_USER_CONNECTIONS
  1290, // ER_OPTION_PREVENTS_STATEMENT: --read-only (a failover in progress)
  1792, // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
  1836, // ER_READ_ONLY_MODE
  1927, // ER_CONNECTION_KILLED
]);
/** mysql2's own failures that carry no code. */
const UNAVAILABLE_MESSAGES = /^(Pool is closed\.|Can't add new command when connection is in closed state|Can't write in closed state|Connection lost)/;

/**
 * The database cannot be used right now: unreachable, refusing, or it did not answer within
 * a deadline. Nothing of the failed unit of work was committed, except possibly when the
 * deadline struck during its COMMIT; an Idempotency-Key makes that case safe to retry (the
 * key's answer commits with the change). `reason` is for logs only: never SQL or data.
 */
export class DatabaseUnavailableError extends ApiError {
  /** Sent with the answer (src/http/plumbing.ts `headersOf`). */
  readonly headers = { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) };

  /** `atGate`: refused during an outage before anything was sent to the database. */
  constructor(readonly reason: string, readonly atGate = false) {
    super('service_unavailable', 'The database is unavailable or did not answer in time; retry the request after the Retry-After delay.');
  }
}

/** False when `err` proves nothing reached the database (refused at the outage gate); true for any other unavailability. */
export function mayHaveReachedDatabase(err: unknown): boolean {
  return isDatabaseUnavailable(err) && !(err instanceof DatabaseUnavailableError && err.atGate);
}

/** The driver error behind `err` (TypeORM wraps it in QueryFailedError). */
export function driverErrorOf(err: unknown): { code?: unknown; errno?: unknown; message?: unknown } | undefined {
  if (!err || typeof err !== 'object') return undefined;
  return ((err as { driverError?: unknown }).driverError ?? err) as { code?: unknown; errno?: unknown; message?: unknown };
}

/** True when `err` says the database is out (see UNAVAILABLE_*), not that a statement failed. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const e = driverErrorOf(err);
  if (!e) return false;
  return (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code))
    || (typeof e.errno === 'number' && UNAVAILABLE_MYSQL.has(e.errno))
    || (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message));
}

/** A short, data-free description of an unavailability error, for logs. */
function reasonOf(err: unknown): string {
  if (err instanceof DatabaseUnavailableError) return err.reason;
  const e = driverErrorOf(err);
  if (typeof e?.code === 'string') return `unreachable: ${e.code}`;
  if (typeof e?.errno === 'number') return `unreachable: errno ${e.errno}`;
  return 'unreachable';
}

/**
 * Thrown inside a MySQL unit of work that needs a row to exist before it can lock it (the
 * first balance row of a currency). Creating it inside the unit is not race-safe: the
 * locking read of a missing row takes a gap lock, so parallel units that all go on to
 * INSERT it deadlock on each other's gap locks (1213), and a unit that is then refused
 * rolls its row back, so a retry races again. `tx` instead rolls the unit back, runs
 * `prepare` with no transaction open (it holds no lock, so it only waits for others to
 * finish; its statements autocommit) and reruns the unit, which now finds the committed
 * row and locks just that row.
 */
export class PrepareAndRetry extends Error {
  constructor(what: string, readonly prepare: (em: EntityManager) => Promise<void>) {
    super(`unit of work needs ${what} first`);
  }
}

/** Where Db reports the start and the end of an outage (pino's Logger fits). */
export interface DbLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface TxOptions {
  /** MySQL only: the isolation level of this transaction (the server default otherwise). */
  isolation?: IsolationLevel;
}

/** mysql2's pooled connection, as far as Db touches it. */
interface PoolConnection {
  destroy(): void;
  stream?: { destroy(err?: Error): void };
}

/** mysql2's own connection (callback API), for the probe. */
interface RawConnection extends PoolConnection {
  on(event: 'error' | 'end', listener: () => void): void;
  query(sql: string, callback: (err: Error | null, result: unknown) => void): void;
  end(callback: () => void): void;
}

/**
 * Settles like `work`, or rejects with `onTimeout()`'s error after `ms`; calls `slow` if
 * `work` is still pending after `slowMs`.
 */
function within<T>(work: Promise<T>, ms: number, onTimeout: () => Error, slow?: { afterMs: number; then: () => void }): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), Math.max(0, ms));
    const slowTimer = slow && slow.afterMs < ms ? setTimeout(slow.then, slow.afterMs) : undefined;
    const done = () => {
      clearTimeout(timer);
      if (slowTimer) clearTimeout(slowTimer);
    };
    work.then(
      (value) => { done(); resolve(value); },
      (err: unknown) => { done(); reject(err); },
    );
  });
}

/**
 * Closes the runner's connection at once and for good: out of the pool (whose waiters get
 * a new connection), socket destroyed (the server rolls back the open transaction when it
 * sees it), and the statement in flight fails with `err` instead of waiting forever.
 */
function destroyConnection(runner: QueryRunner, err: Error): void {
  const conn = (runner as unknown as { databaseConnection?: PoolConnection }).databaseConnection;
  if (!conn) return;
  try {
    conn.destroy();
    conn.stream?.destroy(Object.assign(err, { fatal: true }));
  } catch {
    /* already closed */
  }
}

export class Db {
  readonly kind: 'mysql' | 'sqlite';
  readonly settings: DbSettings;
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Set while a unit of work runs, so `outside` can refuse to run inside one; undefined when
   * the guard is off (`guardProviderCalls: false`, production): AsyncLocalStorage turns on V8's
   * promise hooks for the whole process, a measured 3-5% of a read's CPU.
   */
  private readonly inTx?: AsyncLocalStorage<true>;
  /** Set while the database is out: units fail at once until the probe is answered. */
  private outage?: { since: number; reason: string };
  private probing = false;
  private closed = false;
  /** The abort of every unit running now: an outage fails them all at once. */
  private readonly running = new Set<(reason: string) => void>();
  /** The probe's own connection (kept open between probes; a new one after any failure). */
  private probeConnection?: RawConnection;
  private readonly log?: DbLog;
  private readonly availableListeners: (() => void)[] = [];

  constructor(readonly ds: DataSource, options: { settings?: DbSettings; log?: DbLog; guardProviderCalls?: boolean } = {}) {
    this.kind = ds.options.type === 'mysql' ? 'mysql' : 'sqlite';
    if (options.guardProviderCalls !== false) this.inTx = new AsyncLocalStorage<true>();
    this.settings = options.settings ?? DEFAULT_DB_SETTINGS;
    this.log = options.log;
    // mysql2 gives each pooled connection one `once('error')` listener; a second error on a
    // dead connection would otherwise be an uncaught 'error' event.
    const pool = (ds.driver as unknown as { pool?: { on(event: 'connection', fn: (c: { on(e: 'error', f: () => void): void }) => void): void } }).pool;
    pool?.on('connection', (connection) => connection.on('error', () => undefined));
    // Opened now, so that the first probe does not pay for a handshake.
    if (this.kind === 'mysql' && ds.isInitialized) this.probeConnection = this.openProbeConnection();
  }

  /** SQL statements sent so far. */
  get queryCount(): number {
    return (this.ds.logger as unknown as CountingLogger).count ?? 0;
  }

  /** Queries sent so far (round trips): statements that went in another's query (src/db/late.ts) count once. */
  get roundTripCount(): number {
    const logger = this.ds.logger as unknown as CountingLogger;
    return (logger.count ?? 0) - (logger.riding ?? 0);
  }

  /** False while the database is known to be out (MySQL); units then fail at once with 503. */
  get available(): boolean {
    return this.outage === undefined;
  }

  /** Called each time the database answers again after an outage (pending clean-ups run here). */
  onAvailable(listener: () => void): void {
    this.availableListeners.push(listener);
  }

  /**
   * Runs `fn` in one transaction; retried from the start on deadlock or lock wait time-out
   * (MySQL), and after preparing what a `PrepareAndRetry` asked for. On MySQL the whole of
   * it, retries included, has DB_TX_TIMEOUT_MS.
   */
  async tx<T>(fn: (em: EntityManager) => Promise<T>, options: TxOptions = {}): Promise<T> {
    const inTx = this.inTx;
    const unit = inTx ? (em: EntityManager) => inTx.run(true, () => fn(em)) : fn;
    if (this.kind === 'sqlite') return this.serial(() => this.ds.transaction(unit));
    const deadline = Date.now() + this.settings.txTimeoutMs;
    for (let attempt = 1, prepared = 0; ; ) {
      try {
        return await this.unit(deadline, (runner) => this.transaction(runner, unit, options.isolation));
      } catch (err) {
        if (err instanceof PrepareAndRetry) {
          if (++prepared > MAX_PREPARES) throw new Error(`${err.message}, still after ${MAX_PREPARES} preparations`);
          await this.unit(deadline, (runner) => err.prepare(runner.manager));
          continue;
        }
        if (attempt >= MAX_ATTEMPTS || !isRetryable(err)) throw err;
        await sleep(backoffMs(attempt));
        attempt++;
      }
    }
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

  /** Runs reads on one connection with no transaction (MySQL, with the unit's deadlines) or in the queue (SQLite). */
  async read<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    if (this.kind === 'sqlite') return this.serial(() => fn(this.ds.manager));
    return this.unit(Date.now() + this.settings.txTimeoutMs, (runner) => fn(runner.manager));
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
    const known = new Set(await this.probe(this.settings.pingTimeoutMs, false));
    if (this.outage) this.recovered();
    const pending = this.ds.migrations.map((m) => m.name ?? m.constructor.name).filter((name) => !known.has(name));
    return pending.length > 0 ? 'migrations pending' : 'ready';
  }

  /** `SELECT ... FOR UPDATE` where the engine has row locks; SQLite's queue already serialises. */
  forUpdate<E extends ObjectLiteral>(qb: SelectQueryBuilder<E>): SelectQueryBuilder<E> {
    return this.kind === 'mysql' ? qb.setLock('pessimistic_write') : qb;
  }

  isUniqueViolation(err: unknown): boolean {
    if (!(err instanceof QueryFailedError)) return false;
    const e = err as QueryFailedError & { code?: string; errno?: number };
    return e.code === 'ER_DUP_ENTRY' || e.errno === 1062 || /UNIQUE constraint failed/.test(e.message);
  }

  /**
   * Closes the pool. Bounded: a server that does not answer the goodbye within
   * DB_CONNECT_TIMEOUT_MS (at once during an outage) gets its sockets closed instead, so
   * shutdown never hangs on it.
   */
  async close(): Promise<void> {
    const out = this.outage !== undefined;
    this.closed = true;
    this.dropProbeConnection(this.probeConnection, !out);
    await this.queue.catch(() => undefined);
    if (!this.ds.isInitialized) return;
    const closing = this.ds.destroy();
    const limit = this.kind === 'sqlite' ? 60_000 : out ? 100 : this.settings.connectTimeoutMs;
    try {
      await within(closing, limit, () => new Error('pool close timed out'));
    } catch {
      closing.catch(() => undefined);
      this.destroyPoolSockets();
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

  /** One transaction on `runner`; a rollback that cannot be sent means the connection is not reusable. */
  private async transaction<T>(runner: QueryRunner, fn: (em: EntityManager) => Promise<T>, isolation?: IsolationLevel): Promise<T> {
    await runner.startTransaction(isolation);
    try {
      const result = await fn(runner.manager);
      await runner.commitTransaction();
      return result;
    } catch (err) {
      try {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
      } catch (rollbackError) {
        destroyConnection(runner, rollbackError instanceof Error ? rollbackError : new Error('rollback failed'));
      }
      throw err;
    }
  }

  /**
   * One unit of work on its own connection, under `deadline` and the acquire and statement
   * limits; a long wait has the server probed. A missed limit or an outage destroys the
   * connection; that and every unavailability error become DatabaseUnavailableError.
   */
  private async unit<T>(deadline: number, body: (runner: QueryRunner) => Promise<T>): Promise<T> {
    if (this.closed && !this.ds.isInitialized) throw new DatabaseUnavailableError('closed');
    if (this.outage) throw new DatabaseUnavailableError(`outage: ${this.outage.reason}`, true);
    if (deadline <= Date.now()) throw new DatabaseUnavailableError('timeout: unit of work');
    const s = this.settings;
    const runner = this.ds.createQueryRunner();
    let aborted: DatabaseUnavailableError | undefined;
    let rejectAborted!: (err: Error) => void;
    const abortedPromise = new Promise<never>((_, reject) => (rejectAborted = reject));
    abortedPromise.catch(() => undefined);
    const abort = (reason: string): DatabaseUnavailableError => {
      if (!aborted) {
        aborted = new DatabaseUnavailableError(reason);
        destroyConnection(runner, new DatabaseUnavailableError(reason));
        rejectAborted(aborted);
      }
      return aborted;
    };
    const slow = (what: string) => ({ afterMs: s.probeAfterMs, then: () => this.suspect(`slow: ${what}`) });
    this.running.add(abort);
    const acquiring = runner.connect();
    const work = (async () => {
      await within(acquiring, Math.min(s.acquireTimeoutMs, deadline - Date.now()), () => abort('timeout: waiting for a connection'), slow('waiting for a connection'));
      if (aborted) throw aborted;
      // On MySQL, statements skip TypeORM's per-statement promise wrapper (./lean-query.ts).
      const query = queriesObserved(this.ds) ? runner.query.bind(runner) : leanMysqlQuery(runner);
      runner.query = ((sql: string, parameters?: unknown[], structured?: boolean) =>
        within(query(sql, parameters, structured as never), Math.min(s.queryTimeoutMs, deadline - Date.now()), () => abort('timeout: statement'), slow('statement'))) as QueryRunner['query'];
      return body(runner);
    })();
    try {
      const result = await within(Promise.race([work, abortedPromise]), deadline - Date.now(), () => abort('timeout: unit of work'));
      if (aborted) throw aborted;
      return result;
    } catch (err) {
      const unavailable = aborted ?? (isDatabaseUnavailable(err) ? new DatabaseUnavailableError(reasonOf(err)) : undefined);
      if (!unavailable) throw err;
      if (!aborted) destroyConnection(runner, unavailable);
      this.suspect(unavailable.reason);
      throw unavailable;
    } finally {
      this.running.delete(abort);
      // A connection that arrives after the unit gave up goes back to the pool (or, destroyed, nowhere).
      acquiring.then(() => runner.release(), () => undefined);
      work.catch(() => undefined);
    }
  }

  /**
   * A wait ran long, a limit was missed, or the server looked unreachable. That alone is not
   * an outage (a lock wait behind a hot row, a busy pool, one connection the server closed):
   * the probe asks the server on a connection of its own. If it does not answer, the
   * database is out: every running unit fails now and the gate refuses new ones; the probe
   * keeps asking and its first answer ends the outage.
   */
  private suspect(reason: string): void {
    if (this.kind !== 'mysql' || this.closed || this.probing) return;
    this.probing = true;
    void (async () => {
      try {
        while (!this.closed) {
          try {
            await this.probe(this.settings.probeTimeoutMs, true);
            this.recovered();
            return;
          } catch {
            if (this.closed) return;
            if (!this.outage) {
              this.outage = { since: Date.now(), reason };
              this.log?.warn({ reason }, 'database unavailable: answering 503 service_unavailable until it answers again');
              for (const abort of [...this.running]) abort(`outage: ${reason}`);
            }
            await new Promise<void>((resolve) => setTimeout(resolve, PROBE_PAUSE_MS).unref());
          }
        }
      } finally {
        this.probing = false;
      }
    })();
  }

  /**
   * Asks the server for the applied migrations on the probe's own connection (not the
   * pool's: a pool busy with lock waits says nothing about the server), within `timeoutMs`.
   * A kept connection the server had closed meanwhile (wait_timeout) is replaced once. A
   * judging probe (the outage's, not /readyz's) also drops the connection when it times out.
   */
  private async probe(timeoutMs: number, judge: boolean): Promise<string[]> {
    const options = this.ds.options as { migrationsTableName?: string };
    const table = (options.migrationsTableName ?? 'migrations').replace(/`/g, '');
    for (let attempt = 0; ; attempt++) {
      const kept = this.probeConnection !== undefined;
      const conn = (this.probeConnection ??= this.openProbeConnection());
      const rows = new Promise<{ name: string }[]>((resolve, reject) =>
        conn.query(`SELECT name FROM \`${table}\``, (err, result) => (err ? reject(err) : resolve(result as { name: string }[]))));
      try {
        const answered = await within(rows, timeoutMs, () => new DatabaseUnavailableError('timeout: probe'));
        return answered.map((r) => r.name);
      } catch (err) {
        const timedOut = err instanceof DatabaseUnavailableError;
        if (judge || !timedOut) this.dropProbeConnection(conn, false);
        if (kept && attempt === 0 && !timedOut) continue;
        throw err;
      }
    }
  }

  private openProbeConnection(): RawConnection {
    const options = this.ds.options as { url?: string; ssl?: unknown };
    const mysql = (this.ds.driver as unknown as { mysql: { createConnection(o: object): RawConnection } }).mysql;
    const conn = mysql.createConnection({ uri: options.url, ssl: options.ssl, connectTimeout: this.settings.probeTimeoutMs });
    const forget = () => {
      if (this.probeConnection === conn) this.probeConnection = undefined;
    };
    conn.on('error', forget);
    conn.on('end', forget);
    return conn;
  }

  private dropProbeConnection(conn: RawConnection | undefined, graceful: boolean): void {
    if (!conn) return;
    if (this.probeConnection === conn) this.probeConnection = undefined;
    const destroy = () => {
      try {
        conn.destroy();
        conn.stream?.destroy();
      } catch {
        /* already closed */
      }
    };
    if (!graceful) return destroy();
    // A goodbye (COM_QUIT), but never waited for longer than a connect.
    const timer = setTimeout(destroy, this.settings.connectTimeoutMs);
    timer.unref();
    try {
      conn.end(() => clearTimeout(timer));
    } catch {
      destroy();
    }
  }

  private recovered(): void {
    const outage = this.outage;
    if (!outage) return;
    this.outage = undefined;
    this.log?.info({ reason: outage.reason, downMs: Date.now() - outage.since }, 'database available again');
    for (const listener of this.availableListeners) {
      try {
        listener();
      } catch {
        /* a listener's failure is its own */
      }
    }
  }

  /** Last resort of `close`: the pool did not end in time, so its sockets are closed. */
  private destroyPoolSockets(): void {
    const pool = (this.ds.driver as unknown as { pool?: { _allConnections?: { length: number; get(i: number): PoolConnection } } }).pool;
    const all = pool?._allConnections;
    if (!all) return;
    for (let i = 0; i < all.length; i++) {
      try {
        all.get(i).stream?.destroy();
      } catch {
        /* already closed */
      }
    }
  }
}

function isRetryable(err: unknown): boolean {
  const e = err as { errno?: number; driverError?: { errno?: number } };
  return RETRYABLE_MYSQL.has(e?.errno ?? -1) || RETRYABLE_MYSQL.has(e?.driverError?.errno ?? -1);
}

/** Half to all of min(1 s, 5 ms x 2^attempt): jitter, so the losers of one conflict do not collide again. */
function backoffMs(attempt: number): number {
  const cap = Math.min(1000, 5 * 2 ** attempt);
  return Math.floor(cap / 2 + Math.random() * (cap / 2));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
