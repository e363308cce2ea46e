/**
 * The unit of work. Every state transition runs inside `db.tx`, so the record change,
 * its event row and its ledger rows commit together or not at all.
 *
 * MySQL/MariaDB: each transaction takes its own pooled connection; deadlocks and lock
 * wait time-outs are retried, with exponential back-off. On a Galera cluster a row lock
 * only holds on its own node: a competing writer on another node is refused at commit by
 * certification (or aborted by the applier) with the same ER_LOCK_DEADLOCK, and is
 * retried the same way (docs/decisions.md, "Galera cluster"). Row locks (`forUpdate`)
 * serialise competing writers. A unit
 * of work that finds a row it must lock missing throws `PrepareAndRetry`: the unit rolls
 * back, the row is created and committed on its own, and the unit reruns and locks it.
 *
 * SQLite: the driver has exactly one connection, so concurrent transactions would
 * interleave on it. Every unit of work (reads included, so no request can read another's
 * uncommitted rows) is queued and runs alone. That makes SQLite single-process only,
 * which is what an embedded database is for; two gateway processes need MySQL.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager, QueryFailedError, SelectQueryBuilder, ObjectLiteral } from 'typeorm';
import { CountingLogger } from './query-counter';

/** ER_LOCK_DEADLOCK is also how Galera reports a certification conflict or a brute-force abort. */
const RETRYABLE_MYSQL = new Set([1213 /* ER_LOCK_DEADLOCK */, 1205 /* ER_LOCK_WAIT_TIMEOUT */]);
/**
 * Attempts of a unit of work that keeps deadlocking before the error reaches the caller.
 * Ten, with back-off doubling from 5-10 ms up to 1 s (at most about 3 s in all): on Galera a hot row
 * (a merchant's event counter, a balance) written through three nodes at once loses
 * certification again and again, and five quick attempts ran out under that load.
 */
const MAX_ATTEMPTS = 10;
/** How many prerequisites one unit of work may ask `tx` to prepare before it is treated as a bug. */
const MAX_PREPARES = 3;

/**
 * Thrown inside a MySQL unit of work that needs a row to exist before it can lock it (the
 * first balance row of a currency). Creating it inside the unit is not race-safe: the
 * locking read of a missing row takes a gap lock, so parallel units that all go on to
 * INSERT it deadlock on each other's gap locks (1213), and a unit that is then refused
 * rolls its row back, so a retry races again. `tx` instead rolls the unit back, runs
 * `prepare` with no transaction open (it holds no lock, so it only waits for others to
 * finish) and reruns the unit, which now finds the committed row and locks just that row.
 */
export class PrepareAndRetry extends Error {
  constructor(what: string, readonly prepare: () => Promise<void>) {
    super(`unit of work needs ${what} first`);
  }
}

export class Db {
  readonly kind: 'mysql' | 'sqlite';
  private queue: Promise<unknown> = Promise.resolve();
  /** Set while a unit of work runs, so `outside` can refuse to run inside one. */
  private readonly inTx = new AsyncLocalStorage<true>();

  constructor(readonly ds: DataSource) {
    this.kind = ds.options.type === 'mysql' ? 'mysql' : 'sqlite';
  }

  get queryCount(): number {
    return (this.ds.logger as unknown as CountingLogger).count ?? 0;
  }

  /**
   * Runs `fn` in one transaction; retried from the start on deadlock or lock wait time-out
   * (MySQL), and after preparing what a `PrepareAndRetry` asked for.
   */
  async tx<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    const unit = (em: EntityManager) => this.inTx.run(true, () => fn(em));
    if (this.kind === 'sqlite') return this.serial(() => this.ds.transaction(unit));
    for (let attempt = 1, prepared = 0; ; ) {
      try {
        return await this.ds.transaction(unit);
      } catch (err) {
        if (err instanceof PrepareAndRetry) {
          if (++prepared > MAX_PREPARES) throw new Error(`${err.message}, still after ${MAX_PREPARES} preparations`);
          await err.prepare();
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
   * no row lock and, on SQLite, does not stall the queue. Called inside `tx`, it throws.
   */
  async outside<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inTx.getStore()) throw new Error('a provider call must not run inside a database transaction');
    return fn();
  }

  /** Runs reads outside a transaction (MySQL) or in the queue (SQLite). */
  async read<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    if (this.kind === 'sqlite') return this.serial(() => fn(this.ds.manager));
    return fn(this.ds.manager);
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

  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    if (this.ds.isInitialized) await this.ds.destroy();
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
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
