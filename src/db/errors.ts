/**
 * What a database failure means for the caller: the server is out (503, retry later), the unit
 * of work lost a lock race (retry it), a unique key was hit, or the unit needs a row to exist
 * first (`PrepareAndRetry`). Used by Db (src/db/db.ts) and by services that handle one case.
 */
import { QueryFailedError, type EntityManager } from 'typeorm';
import { ApiError } from '../domain/errors';

/** Seconds a client is asked to wait (Retry-After) when the database is unavailable. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

/** ER_LOCK_DEADLOCK is also how Galera reports a certification conflict or a brute-force abort. */
const RETRYABLE_MYSQL = new Set([1213 /* ER_LOCK_DEADLOCK */, 1205 /* ER_LOCK_WAIT_TIMEOUT */]);

/**
 * Errors that say the server cannot be reached or cannot serve now (as opposed to an
 * error of the statement): the request is answered 503 and may be retried as it is.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
]);
const UNAVAILABLE_MYSQL = new Set([
  1040, // ER_CON_COUNT_ERROR: too many connections
  1047, // ER_UNKNOWN_COM_ERROR: Galera "WSREP has not yet prepared node for application use"
  1053, // ER_SERVER_SHUTDOWN
  1180, // ER_ERROR_DURING_COMMIT: Galera "Not connected to Primary Component" (the node left the cluster mid-commit; nothing committed)
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
/**
 * A unit of work that still lost to concurrent writers (deadlock, lock wait time-out, or a
 * Galera certification conflict) after its retries: nothing of it committed. The answer is
 * 503 service_unavailable with Retry-After, never a 500, and the request's Idempotency-Key is
 * released, so the same request may be sent again as it is.
 */
export class ConflictRetriesExhausted extends ApiError {
  readonly headers = { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) };

  constructor(attempts: number) {
    super(
      'service_unavailable',
      `The change lost to concurrent changes of the same records ${attempts} times and was not made; retry the request after the Retry-After delay.`,
    );
  }
}

export class DatabaseUnavailableError extends ApiError {
  /** Sent with the answer (src/http/plumbing.ts `headersOf`). */
  readonly headers = { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) };

  /** `atGate`: refused during an outage before anything was sent to the database. */
  constructor(
    readonly reason: string,
    readonly atGate = false,
  ) {
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
  return (err as { driverError?: unknown }).driverError ?? err;
}

/** True when `err` says the database is out (see UNAVAILABLE_*), not that a statement failed. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const e = driverErrorOf(err);
  if (!e) return false;
  return (
    (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) ||
    (typeof e.errno === 'number' && UNAVAILABLE_MYSQL.has(e.errno)) ||
    (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message))
  );
}

/** A short, data-free description of an unavailability error, for logs. */
export function reasonOf(err: unknown): string {
  if (err instanceof DatabaseUnavailableError) return err.reason;
  const e = driverErrorOf(err);
  if (typeof e?.code === 'string') return `unreachable: ${e.code}`;
  if (typeof e?.errno === 'number') return `unreachable: errno ${e.errno}`;
  return 'unreachable';
}

/** A deadlock or a lock wait time-out (MySQL): the unit of work is run again from the start. */
export function isRetryable(err: unknown): boolean {
  const e = err as { errno?: number; driverError?: { errno?: number } };
  return RETRYABLE_MYSQL.has(e?.errno ?? -1) || RETRYABLE_MYSQL.has(e?.driverError?.errno ?? -1);
}

/** A statement refused by a unique index (MySQL's ER_DUP_ENTRY, SQLite's UNIQUE constraint). */
export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const e = err as QueryFailedError & { code?: string; errno?: number };
  return e.code === 'ER_DUP_ENTRY' || e.errno === 1062 || /UNIQUE constraint failed/.test(e.message);
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
  constructor(
    what: string,
    readonly prepare: (em: EntityManager) => Promise<void>,
  ) {
    super(`unit of work needs ${what} first`);
  }
}

/** Half to all of min(1 s, 5 ms x 2^attempt): jitter, so the losers of one conflict do not collide again. */
export function backoffMs(attempt: number): number {
  const cap = Math.min(1000, 5 * 2 ** attempt);
  return Math.floor(cap / 2 + Math.random() * (cap / 2));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
