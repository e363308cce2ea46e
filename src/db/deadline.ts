/** Time limits on database work: a promise raced against a timer, and a connection closed for good. */
import type { DataSource, QueryRunner } from 'typeorm';
import { openConnections } from './mysql-session';

/**
 * Settles like `work`, or rejects with `onTimeout()`'s error after `ms`; calls `slow` if
 * `work` is still pending after `slowMs`.
 */
export function within<T>(work: Promise<T>, ms: number, onTimeout: () => Error, slow?: { afterMs: number; then: () => void }): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), Math.max(0, ms));
    const slowTimer = slow && slow.afterMs < ms ? setTimeout(slow.then, slow.afterMs) : undefined;
    const done = () => {
      clearTimeout(timer);
      if (slowTimer) clearTimeout(slowTimer);
    };
    work.then(
      (value) => {
        done();
        resolve(value);
      },
      (err: unknown) => {
        done();
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- settles with work's own rejection, whatever it is
        reject(err);
      },
    );
  });
}

/** mysql2's pooled connection, as far as Db touches it. */
export interface PoolConnection {
  destroy(): void;
  stream?: { destroy(err?: Error): void };
}

/**
 * Keeps `open` equal to `ds`'s open pool connections (MySQL), as the mysql2 module the
 * DataSource was made with tracks them (src/db/mysql-session.ts, which also gives each one
 * an 'error' listener of its own).
 */
export function watchPool(ds: DataSource, open: Set<PoolConnection>): void {
  openConnections(ds, open);
}

/** The driver connection each unit's query runner was given (what TypeORM's public `connect()` answers with). */
const connections = new WeakMap<QueryRunner, PoolConnection>();

/** Connects `runner` through TypeORM's public `connect()` and keeps the driver connection it answers with. */
export async function connectRunner(runner: QueryRunner): Promise<PoolConnection> {
  const conn = (await runner.connect()) as PoolConnection;
  connections.set(runner, conn);
  return conn;
}

/** The driver connection `runner` was given by `connectRunner`, if any. */
export function connectionOf(runner: QueryRunner | undefined): unknown {
  return runner ? connections.get(runner) : undefined;
}

/**
 * Closes the runner's connection at once and for good: out of the pool (whose waiters get
 * a new connection), socket destroyed (the server rolls back the open transaction when it
 * sees it), and the statement in flight fails with `err` instead of waiting forever.
 */
export function destroyConnection(runner: QueryRunner, err: Error): void {
  const conn = connections.get(runner);
  if (!conn) return;
  try {
    conn.destroy();
    conn.stream?.destroy(Object.assign(err, { fatal: true }));
  } catch {
    /* already closed */
  }
}
