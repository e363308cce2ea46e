/**
 * Statements sent together. A unit of work's last writes are batches: their statements, and
 * what follows from the results (`after`). A service's write returns them as values (`EndWork`,
 * `Written`), its callers hand them up, and the unit sends them at its end, just before its
 * COMMIT (src/db/tx.ts `commitWith`). On MySQL/MariaDB consecutive
 * batches go as ONE multi-statement query (one round trip; the server runs them in order and
 * stops at the first error); on SQLite and on a Galera node one by one.
 *
 * `exactlyOneRow` guards an UPDATE that must match one row: on MariaDB with an IF after it, on
 * MySQL 8 with a CALL of the guard procedure (migration 1734100000000-LateGuardProcedure): the
 * guard's error stops the query there, so nothing after it runs. Elsewhere `after` reads the
 * row count once the query answered. Either way the refusal rolls the unit back.
 */

/** One SQL statement with its values. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** Statements sent together with other batches, and what to do with their results (in order). */
export interface Batch<R = unknown> {
  statements: Statement[];
  after(results: unknown[]): R | Promise<R>;
  /**
   * Called when the query that carried the statements failed (it may have failed on another
   * batch's statement): may raise the refusal its own statements meant (the unit then rolls
   * back). Whatever it does, the query's error is raised afterwards.
   */
  recover?(err: unknown): Promise<void>;
}

/** Work for the end of a unit of work: a batch, or a function for work that must read before it writes. */
export type EndWork = Batch | (() => Promise<unknown>);

/**
 * What a write gives back: its value (the wire record, say) and the work it leaves for the end
 * of its unit (the ledger effect and the event that take the merchant's hot locks), in order.
 * The caller passes `end` on, after the end work of what it did before, up to the one place
 * that ends the unit (src/ops/phases.ts, or a job's `db.unit`).
 */
export interface Written<T> {
  value: T;
  end: EndWork[];
}

/**
 * How a batch guards its UPDATEs (`exactlyOneRow`): an IF after the UPDATE (MariaDB runs one
 * outside a stored program), a CALL of the guard procedure (MySQL 8), or none (false: the row
 * count is read from the answer). Db decides once, at start (src/app.ts).
 */
export type GuardForm = 'if' | 'call';

/** The procedure that raises SQLSTATE 45000 with its tag when the row count it is given is not 1. */
export const GUARD_PROCEDURE = 'gateway_expect_one_row';

const GUARD_SQL: Record<GuardForm, string> = {
  if: "IF ROW_COUNT() <> 1 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = ?; END IF",
  call: `CALL ${GUARD_PROCEDURE}(ROW_COUNT(), ?)`,
};

/** Whether `ds` can CALL the guard procedure (MySQL: created by the migration, and executable by this user). */
export async function guardProcedureWorks(ds: { query(sql: string): Promise<unknown> }): Promise<boolean> {
  try {
    await ds.query(`CALL ${GUARD_PROCEDURE}(1, 'probe')`);
    return true;
  } catch {
    return false;
  }
}

let guards = 0;

/**
 * `before`, then `update`, which must match exactly one row, else `missed()` says what that
 * meant (it throws: the unit of work rolls back). With a guard form, a guard follows the
 * UPDATE and raises an error when it matched no row: the error stops the query there, so no
 * statement after it runs. Without one, `after` checks the row count.
 */
export function exactlyOneRow(
  unit: { readonly guards: GuardForm | false },
  update: Statement,
  missed: () => Promise<void>,
  before: Statement[] = [],
): Batch<void> {
  const form = unit.guards;
  if (!form) {
    return {
      statements: [...before, update],
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
