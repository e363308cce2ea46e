/**
 * Hot locks last, in one round trip. A merchant's writes all meet on two rows: its event
 * counter (`event_sequences`) and, when money moves, its balance. Whatever locks them holds
 * the lock until COMMIT, so every round trip a transaction makes after taking them lengthens
 * the time the merchant's other writes wait (and under load a round trip is mostly the wait
 * for the event loop's turn, not the database). A unit of work that opens a late queue
 * (`openLate`; the atomic phases of src/ops/phases.ts do) has the work that takes those
 * locks (ledger effects, events) queued by `late` and run by `runLate` at its very end,
 * after its own rows; the audit entry and the idempotency answer, whose answers nothing
 * waits for, are queued behind them.
 *
 * Late work is a `LateBatch` where it can be: its statements, and what follows from their
 * results (`after`). `runLate` sends the statements of consecutive batches together: on
 * MySQL/MariaDB as ONE multi-statement query (one round trip; the server runs them in order
 * and stops at the first error), on SQLite and on a Galera node one by one (a brute-force
 * abort there does not stop a multi-statement query: src/db/mysql-session.ts); at the end of
 * a phase the COMMIT goes in the same query where nothing can refuse afterwards
 * (`exactlyOneRow`'s guard). The hot locks are then held for that one round trip. Each
 * statement still counts (and logs) as one. `after` runs once all of them answered; what it
 * raises (e.g. insufficient_balance) rolls back everything, the statements sent after its own
 * included, exactly as before. Work that must read before it writes stays a function, run in
 * its turn.
 *
 * Without a queue, `late` runs the work at once.
 */
import type { DataSource, EntityManager, QueryResult } from 'typeorm';
import { commitWithLast } from './lean-query';
import { logRidingQuery } from './query-counter';
import { multiStatementSafe } from './mysql-session';

/** One SQL statement with its values. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** Statements sent together with other late work, and what to do with their results (in order). */
export interface LateBatch<R = unknown> {
  statements: Statement[];
  after(results: unknown[]): R | Promise<R>;
  /**
   * Called when the query that carried the statements failed (it may have failed on another
   * work's statement): may raise the refusal its own statements meant (the unit then rolls
   * back). Whatever it does, the query's error is raised afterwards.
   */
  recover?(err: unknown): Promise<void>;
  /** `after` may still refuse (throw): a COMMIT cannot go with these statements. */
  decidesAfter?: boolean;
}

export type LateWork = LateBatch | (() => Promise<unknown>);

const queues = new WeakMap<EntityManager, LateWork[]>();

let guards = 0;

/**
 * How late work guards its UPDATEs (`exactlyOneRow`): an IF after the UPDATE (MariaDB runs one
 * outside a stored program), a CALL of the guard procedure (MySQL 8: migration
 * 1734100000000-LateGuardProcedure), or none (the row count is read before the COMMIT is sent).
 */
export type GuardForm = 'if' | 'call';
const guarding = new WeakMap<DataSource, GuardForm>();

/** The procedure that raises SQLSTATE 45000 with its tag when the row count it is given is not 1. */
export const GUARD_PROCEDURE = 'gateway_expect_one_row';

/** Sets how `ds`'s late work guards its UPDATEs (false: no guard); src/app.ts decides once, at start. */
export function enableGuards(ds: DataSource, form: GuardForm | false): void {
  if (form) guarding.set(ds, form);
  else guarding.delete(ds);
}

/** How `ds`'s late work guards its UPDATEs (false: it reads the row count before the COMMIT). */
export const guardForm = (ds: DataSource): GuardForm | false => guarding.get(ds) ?? false;

/** Whether `ds` can CALL the guard procedure (MySQL: created by the migration, and executable by this user). */
export async function guardProcedureWorks(ds: DataSource): Promise<boolean> {
  try {
    await ds.query(`CALL ${GUARD_PROCEDURE}(1, 'probe')`);
    return true;
  } catch {
    return false;
  }
}

const GUARD_SQL: Record<GuardForm, string> = {
  if: 'IF ROW_COUNT() <> 1 THEN SIGNAL SQLSTATE \'45000\' SET MESSAGE_TEXT = ?; END IF',
  call: `CALL ${GUARD_PROCEDURE}(ROW_COUNT(), ?)`,
};

/**
 * `before`, then `update`, which must match exactly one row, else `missed()` says what that
 * meant (it throws: the unit of work rolls back). On MariaDB and MySQL 8 a guard follows the
 * UPDATE (an IF; a CALL of the guard procedure) and raises an error when it matched no row:
 * the error stops the query there, so no statement after it runs, a COMMIT sent with them
 * included. Elsewhere (SQLite; MySQL without the procedure) `after` checks the row count, and
 * the COMMIT waits for it.
 */
export function exactlyOneRow(em: EntityManager, update: Statement, missed: () => Promise<void>, before: Statement[] = []): LateBatch<void> {
  const form = guarding.get(em.connection);
  if (!form) {
    return {
      statements: [...before, update],
      decidesAfter: true,
      after: async (results) => {
        if ((results[results.length - 1] as { affectedRows?: number }).affectedRows !== 1) await missed();
      },
    };
  }
  const tag = `late guard ${++guards}`;
  return {
    statements: [...before, update, { sql: GUARD_SQL[form], params: [tag] }],
    after: () => undefined,
    recover: async (err) => {
      if ((err as { driverError?: { sqlMessage?: unknown } }).driverError?.sqlMessage === tag) await missed();
    },
  };
}

export function openLate(em: EntityManager): void {
  queues.set(em, []);
}

/** Runs `work` at the end of `em`'s unit of work if it has a late queue, now otherwise. */
export async function late(em: EntityManager, work: LateWork): Promise<void> {
  const queue = queues.get(em);
  if (queue) queue.push(work);
  else await runNow(em, work);
}

/** Runs `work` now (a batch: its statements in one round trip); its result. */
export async function runNow<R>(em: EntityManager, work: LateBatch<R> | (() => Promise<R>)): Promise<R> {
  if (typeof work === 'function') return work();
  return (await sendBatches(em, [work], false))[0] as R;
}

/**
 * Runs the queued work in order (work may queue more); the queue is closed afterwards.
 * `commit`: the unit of work ends here, so where the query runner allows it (MySQL), the
 * transaction's COMMIT goes with the last statements (src/db/lean-query.ts).
 */
export async function runLate(em: EntityManager, { commit = false } = {}): Promise<void> {
  const queue = queues.get(em);
  if (!queue) return;
  try {
    while (queue.length > 0) {
      const first = queue.shift()!;
      if (typeof first === 'function') {
        await first();
        continue;
      }
      const batches = [first];
      while (queue.length > 0 && typeof queue[0] !== 'function') batches.push(queue.shift() as LateBatch);
      await sendBatches(em, batches, commit && queue.length === 0);
    }
  } finally {
    queues.delete(em);
  }
}

/** Sends the batches' statements in one query (and COMMIT after them if `commit` and possible); their `after`s' results. */
async function sendBatches(em: EntityManager, batches: LateBatch[], commit: boolean): Promise<unknown[]> {
  const statements = batches.flatMap((b) => b.statements);
  const commitment = commit && together(em) && !batches.some((b) => b.decidesAfter) ? commitWithLast(em.queryRunner) : undefined;
  let results: unknown[];
  try {
    results = await send(em, commitment ? [...statements, { sql: 'COMMIT', params: [] }] : statements);
  } catch (err) {
    for (const b of batches) await b.recover?.(err);
    throw err;
  }
  commitment?.committed();
  const answers: unknown[] = [];
  let at = 0;
  for (const b of batches) {
    answers.push(await b.after(results.slice(at, at + b.statements.length)));
    at += b.statements.length;
  }
  return answers;
}

/** One statement's answer as mysql2 gives it: SQLite's write answers with its row count, a read (RETURNING) with its rows. */
async function sendOne(em: EntityManager, s: Statement): Promise<unknown> {
  if (em.connection.options.type === 'mysql') return em.query(s.sql, s.params);
  const runner = em.queryRunner;
  if (!runner) throw new Error('late work runs in a unit of work');
  const r = (await runner.query(s.sql, s.params, true)) as QueryResult;
  return r.affected !== undefined ? { affectedRows: r.affected } : r.records;
}

/** MySQL/MariaDB, and this connection's server may run several statements in one query. */
function together(em: EntityManager): boolean {
  return em.connection.options.type === 'mysql' && multiStatementSafe((em.queryRunner as { databaseConnection?: unknown } | undefined)?.databaseConnection);
}

/**
 * The statements' results, in order. MySQL: one query (the pool runs with
 * `multipleStatements`; every value is still bound by the driver, never spliced in by hand).
 * The query runner logs a query once: the others of a multi-statement query are counted here.
 */
async function send(em: EntityManager, statements: Statement[]): Promise<unknown[]> {
  if (statements.length <= 1 || !together(em)) {
    // One query each: SQLite, a Galera node (src/db/mysql-session.ts `multiStatementSafe`), or one statement.
    const results: unknown[] = [];
    for (const s of statements) results.push(await sendOne(em, s));
    return results;
  }
  const raw = await em.query(statements.map((s) => s.sql).join(';\n'), statements.flatMap((s) => s.params));
  for (let i = 1; i < statements.length; i++) logRidingQuery(em.connection.logger, statements[i].sql, statements[i].params, em.queryRunner);
  return raw as unknown[];
}
